
H
PlaceholderPlaceholder*
dtype0*
shape:
4
BitcastBitcastPlaceholder*

type0*
T0
1
LuLuBitcast*
output_idx_type0*
T0
-
	Bitcast_1BitcastLu*

type0*
T0"ª