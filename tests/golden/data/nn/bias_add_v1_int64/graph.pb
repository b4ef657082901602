
<
PlaceholderPlaceholder*
shape
:*
dtype0	
:
Placeholder_1Placeholder*
shape:*
dtype0	
;
	BiasAddV1	BiasAddV1PlaceholderPlaceholder_1*
T0	"ª