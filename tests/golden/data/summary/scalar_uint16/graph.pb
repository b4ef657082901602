
9
ConstConst*
dtype0*
valueBBxByBz
7
Const_1Const*
dtype0*
valueB:d
7
ScalarSummaryScalarSummaryConstConst_1*
T0"ª