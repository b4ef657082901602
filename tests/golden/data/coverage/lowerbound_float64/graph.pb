
<
PlaceholderPlaceholder*
dtype0*
shape
:
7
valuesPlaceholder*
dtype0*
shape
:
F

LowerBound
LowerBoundPlaceholdervalues*
T0*
out_type0"ª