
6
PlaceholderPlaceholder*
shape:*
dtype0
:
MatrixSquareRootMatrixSquareRootPlaceholder*
T0"ª