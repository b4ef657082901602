
š
ConstConst*
dtype0*}
valuetBr"`,¾¿ÕM=»_ÞÏ>­Oñ¿C´¿z>Û?ÖñÛ¿EŽ½¿O‹å?žù>«&¿7:=NÀ&?rf¿@\¹¿íy“?s.?0ßJ=G+¢?&I>P:ö?‰J—¿^\>€%†½
-
legacyBatchMatrixDiagPartConst*
T0"