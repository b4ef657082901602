
N
PlaceholderPlaceholder*
dtype0*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
"
RankRankPlaceholder*
T0
;
Reshape/shapeConst*
dtype0*
valueB:
>
ReshapeReshapeRankReshape/shape*
Tshape0*
T0"ª