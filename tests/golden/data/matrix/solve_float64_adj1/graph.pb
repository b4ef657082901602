
@
PlaceholderPlaceholder*
shape:*
dtype0
B
Placeholder_1Placeholder*
shape:*
dtype0
N
MatrixSolveMatrixSolvePlaceholderPlaceholder_1*
adjoint(*
T0"ª