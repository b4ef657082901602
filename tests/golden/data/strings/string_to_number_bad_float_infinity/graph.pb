
=
ConstConst*
dtype0* 
valueBB1Binfinity
7
StringToNumberStringToNumberConst*
out_type0"ª