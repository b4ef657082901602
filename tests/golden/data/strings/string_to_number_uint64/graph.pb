
C
ConstConst*
dtype0*&
valueBB0B7B 4294967295
7
StringToNumberStringToNumberConst*
out_type0"ª