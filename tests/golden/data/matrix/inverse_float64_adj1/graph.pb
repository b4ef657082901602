
@
PlaceholderPlaceholder*
shape:*
dtype0
C
MatrixInverseMatrixInversePlaceholder*
T0*
adjoint("ª