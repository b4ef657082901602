
<
PlaceholderPlaceholder*
dtype0*
shape
:
>
Placeholder_1Placeholder*
dtype0*
shape
:
W
EinsumEinsumPlaceholderPlaceholder_1*
T0*
N*
equation	ij,jk->ki"ª