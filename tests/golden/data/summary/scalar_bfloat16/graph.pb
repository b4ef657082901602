
9
ConstConst*
dtype0*
valueBBxByBz
:
Const_1Const*
dtype0*
valueB" ?ÈBà@
7
ScalarSummaryScalarSummaryConstConst_1*
T0"ª