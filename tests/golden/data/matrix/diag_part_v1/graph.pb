
@
PlaceholderPlaceholder*
dtype0*
shape:
6
MatrixDiagPartMatrixDiagPartPlaceholder*
T0"ª