
@
ConstConst*#
valueBBZm9vBZm9v+g==*
dtype0
#
DecodeBase64DecodeBase64Const"ª