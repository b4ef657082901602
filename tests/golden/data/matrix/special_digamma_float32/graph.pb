
8
PlaceholderPlaceholder*
dtype0*
shape:1
(
DigammaDigammaPlaceholder*
T0"ª