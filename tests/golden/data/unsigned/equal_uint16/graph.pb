
2
xPlaceholder*
dtype0*
shape
:
.
yPlaceholder*
dtype0*
shape:
=
EqualEqualxy*
T0*
incompatible_shape_error("ª