
N
PlaceholderPlaceholder*
dtype0*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
G
Placeholder_1Placeholder*
dtype0	*
shape:ÿÿÿÿÿÿÿÿÿ
U
DenseToCSRSparseMatrixDenseToCSRSparseMatrixPlaceholderPlaceholder_1*
T0
:
SparseMatrixNNZSparseMatrixNNZDenseToCSRSparseMatrix
;
Reshape/shapeConst*
dtype0*
valueB:
I
ReshapeReshapeSparseMatrixNNZReshape/shape*
Tshape0*
T0"ª