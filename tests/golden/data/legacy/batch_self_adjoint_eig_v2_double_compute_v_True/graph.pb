
Î
ConstConst*
dtype0*°
value¦B£"¶½@e†@€×VÆÌ;ù¿éEçvõÃ?€×VÆÌ;ù¿®7p¹³W@œÍQ0R´ô¿éEçvõÃ?œÍQ0R´ô¿ÅñĞ¨òİ@8j¡Cç$@«Ulx:Æõ?fĞå½SS¾¿«Ulx:Æõ?ğ]f‚y(@ØöjÉ2ïÀfĞå½SS¾¿ØöjÉ2ïÀ^³–à!@
@
legacyBatchSelfAdjointEigV2Const*
T0*
	compute_v("