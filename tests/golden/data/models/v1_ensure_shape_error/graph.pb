
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
;
EnsureShapeEnsureShapex*
T0*
shape
:"ª