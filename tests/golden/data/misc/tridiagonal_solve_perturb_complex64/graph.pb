
D
PlaceholderPlaceholder*
shape:*
dtype0
4
BitcastBitcastPlaceholder*
T0*

type0
F
Placeholder_1Placeholder*
shape:*
dtype0
8
	Bitcast_1BitcastPlaceholder_1*
T0*

type0
q
TridiagonalSolveTridiagonalSolveBitcast	Bitcast_1*
perturb_singular(*
T0*
partial_pivoting(
;
	Bitcast_2BitcastTridiagonalSolve*
T0*

type0"ª