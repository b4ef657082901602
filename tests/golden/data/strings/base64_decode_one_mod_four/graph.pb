
=
ConstConst* 
valueBBZm9vBZm9vY*
dtype0
#
DecodeBase64DecodeBase64Const"ª