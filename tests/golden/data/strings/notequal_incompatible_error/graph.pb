
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
Y
NotEqualNotEqualPlaceholderPlaceholder_1*
T0*
incompatible_shape_error("ª