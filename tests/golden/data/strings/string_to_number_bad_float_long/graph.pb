
]
ConstConst*
dtype0*@
value7B5B1B(1111111111111111111111111111111111111111
7
StringToNumberStringToNumberConst*
out_type0"ª