
8
PlaceholderPlaceholder*
shape:*
dtype0
(
SigmoidSigmoidPlaceholder*
T0"ª