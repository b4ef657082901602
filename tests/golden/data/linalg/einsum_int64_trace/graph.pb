
<
PlaceholderPlaceholder*
dtype0	*
shape
:
C
EinsumEinsumPlaceholder*
T0	*
equationii->*
N
;
Reshape/shapeConst*
dtype0*
valueB:
@
ReshapeReshapeEinsumReshape/shape*
T0	*
Tshape0"ª