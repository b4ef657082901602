
9
ConstConst*
valueBB1B0x10*
dtype0
7
StringToNumberStringToNumberConst*
out_type0	"ª