
@
PlaceholderPlaceholder*
dtype0*
shape:
B
Placeholder_1Placeholder*
dtype0*
shape:
?

set_diag/kConst*
dtype0*
valueB"ýÿÿÿþÿÿÿ
b
set_diagMatrixSetDiagV3PlaceholderPlaceholder_1
set_diag/k*
align	LEFT_LEFT*
T0"ª