
8
PlaceholderPlaceholder*
dtype0*
shape:

:
Placeholder_1Placeholder*
dtype0*
shape:

P
XlaKeyValueSortXlaKeyValueSortPlaceholderPlaceholder_1*
K0*
V0"ª