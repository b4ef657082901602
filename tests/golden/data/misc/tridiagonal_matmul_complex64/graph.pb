
D
PlaceholderPlaceholder*
shape:*
dtype0
4
BitcastBitcastPlaceholder*
T0*

type0
F
Placeholder_1Placeholder*
shape:*
dtype0
8
	Bitcast_1BitcastPlaceholder_1*
T0*

type0
F
Placeholder_2Placeholder*
shape:*
dtype0
8
	Bitcast_2BitcastPlaceholder_2*
T0*

type0
F
Placeholder_3Placeholder*
shape:*
dtype0
8
	Bitcast_3BitcastPlaceholder_3*
T0*

type0
Y
TridiagonalMatMulTridiagonalMatMulBitcast	Bitcast_1	Bitcast_2	Bitcast_3*
T0
<
	Bitcast_4BitcastTridiagonalMatMul*
T0*

type0"ª