
@
PlaceholderPlaceholder*
shape:*
dtype0
6
MatrixDiagPartMatrixDiagPartPlaceholder*
T0"ª