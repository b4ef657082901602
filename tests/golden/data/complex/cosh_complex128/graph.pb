
.
xPlaceholder*
dtype0*
shape:

CoshCoshx*
T0"ª