
.
xPlaceholder*
shape:*
dtype0
2
InvertPermutationInvertPermutationx*
T0"ª