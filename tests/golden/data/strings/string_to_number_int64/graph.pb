
`
ConstConst*C
value:B8B0B-1B 42 B+7B
2147483647B-2147483648B0010*
dtype0
7
StringToNumberStringToNumberConst*
out_type0	"ª