
N
PlaceholderPlaceholder*
dtype0*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
*
CholeskyCholeskyPlaceholder*
T0"ª