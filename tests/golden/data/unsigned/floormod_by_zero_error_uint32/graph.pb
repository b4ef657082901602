
.
xPlaceholder*
dtype0*
shape:
.
yPlaceholder*
dtype0*
shape:
#
FloorModFloorModxy*
T0"ª