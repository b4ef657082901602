
2
xPlaceholder*
dtype0*
shape
:
.
yPlaceholder*
dtype0*
shape:
C
NotEqualNotEqualxy*
T0*
incompatible_shape_error("ª