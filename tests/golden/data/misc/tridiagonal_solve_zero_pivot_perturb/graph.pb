
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
perturb_singular(*
T0*
partial_pivoting("ª