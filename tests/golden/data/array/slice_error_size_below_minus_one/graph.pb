
<
PlaceholderPlaceholder*
dtype0*
shape
:
C
Placeholder_1Placeholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
C
Placeholder_2Placeholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
O
SliceSlicePlaceholderPlaceholder_1Placeholder_2*
T0*
Index0"ª