
<
PlaceholderPlaceholder*
shape
:*
dtype0	
$
Relu6Relu6Placeholder*
T0	"ª