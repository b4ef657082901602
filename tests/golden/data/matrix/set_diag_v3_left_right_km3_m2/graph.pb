
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
dtype0*
valueB"ýÿÿÿþÿÿÿ
c
set_diagMatrixSetDiagV3PlaceholderPlaceholder_1
set_diag/k*
align
LEFT_RIGHT*
T0"ª