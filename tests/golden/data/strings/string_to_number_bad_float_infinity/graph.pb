
=
ConstConst* 
valueBB1Binfinity*
dtype0
7
StringToNumberStringToNumberConst*
out_type0"ª