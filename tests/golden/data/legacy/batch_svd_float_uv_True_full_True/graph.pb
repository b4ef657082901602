
j
ConstConst*
dtype0*M
valueDBB"0..1¿Z|ù?Þ£9¿°¼“?c½?îß¾”o~¾N¿a=É¿¤P¬½~m„¿ê®x¿
I
legacyBatchSvdConst*
T0*

compute_uv(*
full_matrices("