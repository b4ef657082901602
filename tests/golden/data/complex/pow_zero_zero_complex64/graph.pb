
.
xPlaceholder*
dtype0*
shape:

PowPowxx*
T0"ª