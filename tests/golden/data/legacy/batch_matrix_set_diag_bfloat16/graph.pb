
j
ConstConst*
dtype0*M
valueDBB"0¿å?Ÿ¿¤¿¿Š¿/?Å¿Ë?·?ÿ¿*>É¿x¿ª¾>¾¾Û?w¿ ¿/?å?Ø?Ã?
D
Const_1Const*
dtype0*%
valueB"»?¶?Ÿ?t¿Ø¿å?
5
legacyBatchMatrixSetDiagConstConst_1*
T0"