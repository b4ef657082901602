
D
PlaceholderPlaceholder*
shape:*
dtype0
4
BitcastBitcastPlaceholder*
T0*

type0
6
MatrixSquareRootMatrixSquareRootBitcast*
T0
;
	Bitcast_1BitcastMatrixSquareRoot*
T0*

type0"ª