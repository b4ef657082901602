
<
PlaceholderPlaceholder*
dtype0*
shape
:
.

MatrixDiag
MatrixDiagPlaceholder*
T0"ª