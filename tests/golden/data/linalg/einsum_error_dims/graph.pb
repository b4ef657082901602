
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
W
EinsumEinsumPlaceholderPlaceholder_1*
T0*
equation	ij,jk->ik*
N"ª