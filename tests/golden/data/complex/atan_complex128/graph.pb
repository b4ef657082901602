
.
xPlaceholder*
dtype0*
shape:

AtanAtanx*
T0"ª