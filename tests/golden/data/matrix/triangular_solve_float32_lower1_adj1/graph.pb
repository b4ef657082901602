
D
PlaceholderPlaceholder*
dtype0*
shape:
B
Placeholder_1Placeholder*
dtype0*
shape:
o
MatrixTriangularSolveMatrixTriangularSolvePlaceholderPlaceholder_1*
lower(*
adjoint(*
T0"ª