
D
PlaceholderPlaceholder*
shape:*
dtype0
4
BitcastBitcastPlaceholder*

type0*
T0
F
Placeholder_1Placeholder*
shape:*
dtype0
8
	Bitcast_1BitcastPlaceholder_1*

type0*
T0
q
TridiagonalSolveTridiagonalSolveBitcast	Bitcast_1*
partial_pivoting(*
T0*
perturb_singular(
;
	Bitcast_2BitcastTridiagonalSolve*

type0*
T0"ª