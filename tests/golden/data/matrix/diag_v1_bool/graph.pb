
<
PlaceholderPlaceholder*
shape
:*
dtype0

.

MatrixDiag
MatrixDiagPlaceholder*
T0
"ª