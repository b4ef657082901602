
<
PlaceholderPlaceholder*
shape
:*
dtype0
H
	DecodeRaw	DecodeRawPlaceholder*
out_type0*
little_endian(
2
BitcastBitcast	DecodeRaw*

type0*
T0"ª