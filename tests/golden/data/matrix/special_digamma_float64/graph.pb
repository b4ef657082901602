
8
PlaceholderPlaceholder*
shape:1*
dtype0
(
DigammaDigammaPlaceholder*
T0"ª