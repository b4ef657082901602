
.
xPlaceholder*
dtype0*
shape:

TanTanx*
T0"ª