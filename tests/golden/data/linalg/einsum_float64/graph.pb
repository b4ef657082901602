
@
PlaceholderPlaceholder*
dtype0*
shape:
B
Placeholder_1Placeholder*
dtype0*
shape:
Z
EinsumEinsumPlaceholderPlaceholder_1*
T0*
equationbij,bjk->bik*
N"ª