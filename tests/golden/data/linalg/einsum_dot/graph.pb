
<
PlaceholderPlaceholder*
dtype0*
shape
:
>
Placeholder_1Placeholder*
dtype0*
shape
:
U
EinsumEinsumPlaceholderPlaceholder_1*
T0*
N*
equation	ab,ab->
;
Reshape/shapeConst*
dtype0*
valueB:
@
ReshapeReshapeEinsumReshape/shape*
T0*
Tshape0"ª