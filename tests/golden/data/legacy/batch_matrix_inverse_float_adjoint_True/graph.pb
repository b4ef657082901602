
‚
ConstConst*
dtype0*e
value\BZ"H¯ÁA-£æ?¶0¶¿aµå?õA¾¢È§?Îõ¹¾‹,A‡ã@xÌ?*<>ÏZ.¿u"AK‡I¿ÿx>¾ã^»¿šÌ	A
;
legacyBatchMatrixInverseConst*
T0*
adjoint("