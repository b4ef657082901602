
6
PlaceholderPlaceholder*
shape:*
dtype0
H
	DecodeRaw	DecodeRawPlaceholder*
out_type0*
little_endian("ª