
N
PlaceholderPlaceholder*
dtype0*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
C
MatrixInverseMatrixInversePlaceholder*
T0*
adjoint("ª