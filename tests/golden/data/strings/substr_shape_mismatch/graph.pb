
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
5
ConstConst*
dtype0*
valueBBabc
L
SubstrSubstrConstPlaceholderPlaceholder_1*
unitBYTE*
T0"ª