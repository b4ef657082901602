
@
PlaceholderPlaceholder*
shape:*
dtype0
B
LogMatrixDeterminantLogMatrixDeterminantPlaceholder*
T0
<
MatrixDeterminantMatrixDeterminantPlaceholder*
T0"ª