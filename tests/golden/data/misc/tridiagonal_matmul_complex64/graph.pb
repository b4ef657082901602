
D
PlaceholderPlaceholder*
dtype0*
shape:
4
BitcastBitcastPlaceholder*

type0*
T0
F
Placeholder_1Placeholder*
dtype0*
shape:
8
	Bitcast_1BitcastPlaceholder_1*

type0*
T0
F
Placeholder_2Placeholder*
dtype0*
shape:
8
	Bitcast_2BitcastPlaceholder_2*

type0*
T0
F
Placeholder_3Placeholder*
dtype0*
shape:
8
	Bitcast_3BitcastPlaceholder_3*

type0*
T0
Y
TridiagonalMatMulTridiagonalMatMulBitcast	Bitcast_1	Bitcast_2	Bitcast_3*
T0
<
	Bitcast_4BitcastTridiagonalMatMul*

type0*
T0"ª