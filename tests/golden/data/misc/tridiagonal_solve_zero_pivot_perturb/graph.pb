
@
PlaceholderPlaceholder*
dtype0*
shape:
B
Placeholder_1Placeholder*
dtype0*
shape:
y
TridiagonalSolveTridiagonalSolvePlaceholderPlaceholder_1*
perturb_singular(*
partial_pivoting(*
T0"ª