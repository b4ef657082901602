
‚
ConstConst*
dtype0*e
value\BZ"H*3l@fŞÉ¿®«>fŞÉ¿½ê@‘¢¥¿®«>‘¢¥¿•ï@:'AÔ1®?˜šò½Ô1®?ÌCA—yçÀ˜šò½—yçÀ¶A
(
legacySelfAdjointEigConst*
T0"