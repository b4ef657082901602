
N
PlaceholderPlaceholder*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ*
dtype0
P
Placeholder_1Placeholder*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ*
dtype0
7
EluGradEluGradPlaceholderPlaceholder_1*
T0"ª