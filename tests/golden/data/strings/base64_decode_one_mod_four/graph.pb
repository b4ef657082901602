
=
ConstConst*
dtype0* 
valueBBZm9vBZm9vY
#
DecodeBase64DecodeBase64Const"ª