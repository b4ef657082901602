
[
ConstConst*>
value5B3B9223372036854775807B-9223372036854775808*
dtype0
7
StringToNumberStringToNumberConst*
out_type0	"ª