
š
ConstConst*
dtype0*}
valuetBrJ`..1¿N‘½?Z|ù?—LZ¿Þ£9¿V?Ó>°¼“?óŽ?c½?«B]?îß¾´¬Ô?”o~¾„…¸?N¿>#Ö?a=É¿cò¿¤P¬½„€¾~m„¿¬v½ê®x¿¤Þ¿
I
legacyBatchSvdConst*
T0*

compute_uv(*
full_matrices("