
6
PlaceholderPlaceholder*
shape:*
dtype0
8
Placeholder_1Placeholder*
shape:*
dtype0
S
EqualEqualPlaceholderPlaceholder_1*
T0*
incompatible_shape_error("ª