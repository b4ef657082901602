
9
ConstConst*
valueBB1B1.5x*
dtype0
7
StringToNumberStringToNumberConst*
out_type0"ª