
2
xPlaceholder*
dtype0*
shape
:
.
yPlaceholder*
dtype0*
shape:

DivDivxy*
T0"ª