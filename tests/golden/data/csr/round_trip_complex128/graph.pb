
N
PlaceholderPlaceholder*
dtype0*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
G
Placeholder_1Placeholder*
dtype0	*
shape:ÿÿÿÿÿÿÿÿÿ
U
DenseToCSRSparseMatrixDenseToCSRSparseMatrixPlaceholderPlaceholder_1*
T0
b
CSRSparseMatrixToSparseTensorCSRSparseMatrixToSparseTensorDenseToCSRSparseMatrix*

type0
¨
SparseTensorToCSRSparseMatrixSparseTensorToCSRSparseMatrixCSRSparseMatrixToSparseTensorCSRSparseMatrixToSparseTensor:1CSRSparseMatrixToSparseTensor:2*
T0
[
CSRSparseMatrixToDenseCSRSparseMatrixToDenseSparseTensorToCSRSparseMatrix*

type0"ª