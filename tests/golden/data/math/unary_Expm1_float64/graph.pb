
8
PlaceholderPlaceholder*
shape:*
dtype0
$
Expm1Expm1Placeholder*
T0"ª