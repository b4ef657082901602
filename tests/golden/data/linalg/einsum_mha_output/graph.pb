
D
PlaceholderPlaceholder*
dtype0*
shape:
B
Placeholder_1Placeholder*
dtype0*
shape:
[
EinsumEinsumPlaceholderPlaceholder_1*
T0*
N*
equationabcd,cde->abe"ª