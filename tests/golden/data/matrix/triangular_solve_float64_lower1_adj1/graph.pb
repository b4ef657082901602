
D
PlaceholderPlaceholder*
shape:*
dtype0
B
Placeholder_1Placeholder*
shape:*
dtype0
o
MatrixTriangularSolveMatrixTriangularSolvePlaceholderPlaceholder_1*
lower(*
adjoint(*
T0"ª