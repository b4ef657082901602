
.
xPlaceholder*
dtype0*
shape:

Log1pLog1px*
T0"ª