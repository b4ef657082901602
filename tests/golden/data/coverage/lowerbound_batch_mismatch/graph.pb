
E
PlaceholderPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
@
valuesPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
F

LowerBound
LowerBoundPlaceholdervalues*
T0*
out_type0"ª