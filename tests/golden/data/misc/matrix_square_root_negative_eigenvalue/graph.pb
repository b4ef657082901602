
<
PlaceholderPlaceholder*
dtype0*
shape
:
:
MatrixSquareRootMatrixSquareRootPlaceholder*
T0"ª