
C
ConstConst*&
valueBB0B7B 4294967295*
dtype0
7
StringToNumberStringToNumberConst*
out_type0"ª