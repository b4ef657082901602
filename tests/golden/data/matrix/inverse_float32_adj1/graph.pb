
@
PlaceholderPlaceholder*
dtype0*
shape:
C
MatrixInverseMatrixInversePlaceholder*
adjoint(*
T0"ª