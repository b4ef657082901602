
8
PlaceholderPlaceholder*
dtype0*
shape:/
$
NdtriNdtriPlaceholder*
T0"ª