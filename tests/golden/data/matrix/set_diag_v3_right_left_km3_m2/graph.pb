
@
PlaceholderPlaceholder*
shape:*
dtype0
B
Placeholder_1Placeholder*
shape:*
dtype0
?

set_diag/kConst*
valueB"ýÿÿÿþÿÿÿ*
dtype0
c
set_diagMatrixSetDiagV3PlaceholderPlaceholder_1
set_diag/k*
T0*
align
RIGHT_LEFT"ª