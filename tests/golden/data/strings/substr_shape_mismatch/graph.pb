
6
PlaceholderPlaceholder*
shape:*
dtype0
8
Placeholder_1Placeholder*
shape:*
dtype0
5
ConstConst*
valueBBabc*
dtype0
L
SubstrSubstrConstPlaceholderPlaceholder_1*
T0*
unitBYTE"ª