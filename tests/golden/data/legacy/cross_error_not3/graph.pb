
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
3
CrossCrossPlaceholderPlaceholder_1*
T0"ª