
š
ConstConst*
dtype0*}
valuetBr"`à'¿Í¼ä?fŸ¿ë3¤¿£¶¿ö‰¿T‰.?QÅ¿éÊ?á\·?uþ¿lØ)>ÊJÉ¿¨Úw¿i2ª¾ý=¾¸x¾xãÚ?¶w¿ÛÌŸ¿Lš.?5«ä?«zØ?!°Â?
P
Const_1Const*
dtype0*1
value(B&"ÀÆº?6êµ?u>Ÿ?hGt¿PyØ¿*—ä?
5
legacyBatchMatrixSetDiagConstConst_1*
T0"