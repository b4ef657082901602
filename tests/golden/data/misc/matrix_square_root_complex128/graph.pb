
D
PlaceholderPlaceholder*
dtype0*
shape:
4
BitcastBitcastPlaceholder*

type0*
T0
6
MatrixSquareRootMatrixSquareRootBitcast*
T0
;
	Bitcast_1BitcastMatrixSquareRoot*

type0*
T0"ª