
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
J
SparseMatrixOrderingAMDSparseMatrixOrderingAMDDenseToCSRSparseMatrix"ª