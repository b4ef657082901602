
N
PlaceholderPlaceholder*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ*
dtype0
3
ConstConst*
valueB:*
dtype0
z
TensorListFromTensorTensorListFromTensorPlaceholderConst*

shape_type0*
element_dtype0:éèÒ
:
TensorListLengthTensorListLengthTensorListFromTensor
;
Reshape/shapeConst*
valueB:*
dtype0
J
ReshapeReshapeTensorListLengthReshape/shape*
T0*
Tshape0"ª