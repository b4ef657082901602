
@
PlaceholderPlaceholder*
dtype0*
shape:
B
Placeholder_1Placeholder*
dtype0*
shape:
N
MatrixSolveMatrixSolvePlaceholderPlaceholder_1*
adjoint(*
T0"ª