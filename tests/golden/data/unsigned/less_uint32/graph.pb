
2
xPlaceholder*
dtype0*
shape
:
.
yPlaceholder*
dtype0*
shape:

LessLessxy*
T0"ª