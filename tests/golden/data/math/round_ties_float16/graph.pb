
8
PlaceholderPlaceholder*
shape:*
dtype0
$
RoundRoundPlaceholder*
T0"ª