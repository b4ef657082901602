
E
PlaceholderPlaceholder*
dtype0	*
shape:ÿÿÿÿÿÿÿÿÿ
8
Placeholder_1Placeholder*
dtype0*
shape:
:
Placeholder_2Placeholder*
dtype0	*
shape:
r
SparseTensorToCSRSparseMatrixSparseTensorToCSRSparseMatrixPlaceholderPlaceholder_1Placeholder_2*
T0
A
SparseMatrixNNZSparseMatrixNNZSparseTensorToCSRSparseMatrix
;
Reshape/shapeConst*
dtype0*
valueB:
I
ReshapeReshapeSparseMatrixNNZReshape/shape*
Tshape0*
T0"ª