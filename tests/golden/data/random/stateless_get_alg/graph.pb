
.
StatelessRandomGetAlgStatelessRandomGetAlg
;
Reshape/shapeConst*
dtype0*
valueB:
O
ReshapeReshapeStatelessRandomGetAlgReshape/shape*
Tshape0*
T0"ª