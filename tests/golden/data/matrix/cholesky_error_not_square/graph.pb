
N
PlaceholderPlaceholder*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ*
dtype0
*
CholeskyCholeskyPlaceholder*
T0"ª