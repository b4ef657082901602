
<
PlaceholderPlaceholder*
shape
:*
dtype0
&
L2LossL2LossPlaceholder*
T0
;
Reshape/shapeConst*
valueB:*
dtype0
@
ReshapeReshapeL2LossReshape/shape*
T0*
Tshape0"ª