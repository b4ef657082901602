
2
gPlaceholder*
dtype0*
shape
:
2
fPlaceholder*
dtype0*
shape
:
#
ReluGradReluGradgf*
T0"ª