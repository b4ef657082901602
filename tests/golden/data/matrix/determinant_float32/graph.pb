
@
PlaceholderPlaceholder*
shape:*
dtype0
<
MatrixDeterminantMatrixDeterminantPlaceholder*
T0"ª