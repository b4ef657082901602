
8
PlaceholderPlaceholder*
shape:*
dtype0
$
IsInfIsInfPlaceholder*
T0"ª