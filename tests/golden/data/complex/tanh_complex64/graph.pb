
.
xPlaceholder*
dtype0*
shape:

TanhTanhx*
T0"ª