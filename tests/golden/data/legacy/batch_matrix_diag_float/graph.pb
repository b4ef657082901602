
N
ConstConst*
dtype0*1
value(B&"yé?»ª•¿î)¨?K‘³¿tÊQ=¿hº¿
)
legacyBatchMatrixDiagConst*
T0"