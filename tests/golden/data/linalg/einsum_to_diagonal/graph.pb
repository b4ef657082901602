
8
PlaceholderPlaceholder*
dtype0*
shape:
D
EinsumEinsumPlaceholder*
T0*
N*
equationi->ii"ª