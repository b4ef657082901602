
B
ConstConst*
dtype0*%
valueB"é?–¿¨?´¿R=º¿
)
legacyBatchMatrixDiagConst*
T0"