
«
ConstConst*
valueƒB€B1B-2.5B  3.25  B1e10B-1E-3B.5B5.BinfB-INFB+nanB0x1FB1e40B1e-50B+7B3.4028235e38B0.1B123456789.123456789*
dtype0
7
StringToNumberStringToNumberConst*
out_type0"ª