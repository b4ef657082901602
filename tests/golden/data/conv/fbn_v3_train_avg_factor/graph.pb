
:
xPlaceholder*
shape:*
dtype0
B
ConstConst*
dtype0*%
valueB"ê¡¸?Ÿ N?AA?‡ý8?
D
Const_1Const*
dtype0*%
valueB"!m>õ>Û =ƒº|¿
D
Const_2Const*
dtype0*%
valueB"Mz¿*à>þì¬¾Ì½]?
D
Const_3Const*
dtype0*%
valueB"àkU?>‘£?N–?QÞ®?
¸
FusedBatchNormV3FusedBatchNormV3xConstConst_1Const_2Const_3*
is_training(*
T0*
data_formatNHWC*
epsilon%oƒ:*
exponential_avg_factor%ÍÌÌ=*
U0"ª