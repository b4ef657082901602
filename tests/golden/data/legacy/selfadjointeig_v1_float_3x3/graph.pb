
Z
ConstConst*
dtype0*=
value4B2"$*3l@fÞÉ¿®«>fÞÉ¿ž½ê@‘¢¥¿®«>‘¢¥¿•ïŽ@
(
legacySelfAdjointEigConst*
T0"