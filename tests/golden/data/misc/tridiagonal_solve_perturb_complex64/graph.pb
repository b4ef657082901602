
D
PlaceholderPlaceholder*
dtype0*
shape:
4
BitcastBitcastPlaceholder*

type0*
T0
F
Placeholder_1Placeholder*
dtype0*
shape:
8
	Bitcast_1BitcastPlaceholder_1*

type0*
T0
q
TridiagonalSolveTridiagonalSolveBitcast	Bitcast_1*
perturb_singular(*
partial_pivoting(*
T0
;
	Bitcast_2BitcastTridiagonalSolve*

type0*
T0"ª