
@
PlaceholderPlaceholder*
dtype0*
shape:
<
MatrixDeterminantMatrixDeterminantPlaceholder*
T0"ª