
N
PlaceholderPlaceholder*
dtype0*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
2
SizeSizePlaceholder*
T0*
out_type0
;
Reshape/shapeConst*
dtype0*
valueB:
>
ReshapeReshapeSizeReshape/shape*
T0*
Tshape0"ª