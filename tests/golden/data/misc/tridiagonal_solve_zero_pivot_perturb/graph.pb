
@
PlaceholderPlaceholder*
shape:*
dtype0
B
Placeholder_1Placeholder*
shape:*
dtype0
y
TridiagonalSolveTridiagonalSolvePlaceholderPlaceholder_1*
partial_pivoting(*
T0*
perturb_singular("ª