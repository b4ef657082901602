
8
PlaceholderPlaceholder*
shape:*
dtype0
&
SquareSquarePlaceholder*
T0"ª