
<
PlaceholderPlaceholder*
dtype0*
shape
:
$
Relu6Relu6Placeholder*
T0"ª