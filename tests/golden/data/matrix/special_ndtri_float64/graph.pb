
8
PlaceholderPlaceholder*
shape:/*
dtype0
$
NdtriNdtriPlaceholder*
T0"ª