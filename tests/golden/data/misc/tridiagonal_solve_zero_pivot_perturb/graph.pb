
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
perturb_singular(*
T0*
partial_pivoting("ª