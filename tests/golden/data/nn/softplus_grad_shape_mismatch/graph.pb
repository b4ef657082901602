
N
PlaceholderPlaceholder*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ*
dtype0
P
Placeholder_1Placeholder*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ*
dtype0
A
SoftplusGradSoftplusGradPlaceholderPlaceholder_1*
T0"ª