
]
ConstConst*@
value7B5B1B(1111111111111111111111111111111111111111*
dtype0
7
StringToNumberStringToNumberConst*
out_type0"ª