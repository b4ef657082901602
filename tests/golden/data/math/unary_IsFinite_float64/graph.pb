
8
PlaceholderPlaceholder*
shape:*
dtype0
*
IsFiniteIsFinitePlaceholder*
T0"ª