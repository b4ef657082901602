
‚
ConstConst*
dtype0*e
value\BZ"H[,A3—9=7Öó?©œÖ¿ëŞAšôü¾Ì’š?J¤¦¿ßÈ'AğÏA#ïÍ?ˆ(»½øW¾~"Açâ÷?šf¿øğ?+u+A
l
Const_1Const*
dtype0*M
valueDBB"0X)œ?jª?{=âV[¿2cä¿LÜî¾fr»¾±Ñè¿;	ç¿”ÿ?¦?Gî‡¿
Y
legacyBatchMatrixTriangularSolveConstConst_1*
T0*
adjoint(*
lower("