
9
ConstConst*
dtype0*
valueBB1B0x10
7
StringToNumberStringToNumberConst*
out_type0	"ª