
D
PlaceholderPlaceholder*
dtype0*
shape:
4
BitcastBitcastPlaceholder*
T0*

type0
F
Placeholder_1Placeholder*
dtype0*
shape:
8
	Bitcast_1BitcastPlaceholder_1*
T0*

type0
q
TridiagonalSolveTridiagonalSolveBitcast	Bitcast_1*
T0*
perturb_singular(*
partial_pivoting(
;
	Bitcast_2BitcastTridiagonalSolve*
T0*

type0"ª