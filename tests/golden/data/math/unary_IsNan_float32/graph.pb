
8
PlaceholderPlaceholder*
shape:*
dtype0
$
IsNanIsNanPlaceholder*
T0"ª