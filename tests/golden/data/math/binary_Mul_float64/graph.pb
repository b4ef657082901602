
8
PlaceholderPlaceholder*
shape:*
dtype0
:
Placeholder_1Placeholder*
shape:*
dtype0
/
MulMulPlaceholderPlaceholder_1*
T0"ª