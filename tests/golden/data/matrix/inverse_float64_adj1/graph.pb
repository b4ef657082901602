
@
PlaceholderPlaceholder*
shape:*
dtype0
C
MatrixInverseMatrixInversePlaceholder*
adjoint(*
T0"ª