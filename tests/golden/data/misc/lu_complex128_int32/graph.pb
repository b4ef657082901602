
H
PlaceholderPlaceholder*
shape:*
dtype0
4
BitcastBitcastPlaceholder*
T0*

type0
1
LuLuBitcast*
T0*
output_idx_type0
-
	Bitcast_1BitcastLu*
T0*

type0"ª