
j
ConstConst*
dtype0*M
valueDBB"0¾¿=»Ð>ñ¿´¿Û?Ü¿¾¿æ?ú>¿;='?f¿¹¿“?.?K=¢?I>ö?—¿\>†½
-
legacyBatchMatrixDiagPartConst*
T0"