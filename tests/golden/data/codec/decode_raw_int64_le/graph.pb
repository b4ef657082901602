
<
PlaceholderPlaceholder*
dtype0*
shape
:
H
	DecodeRaw	DecodeRawPlaceholder*
out_type0	*
little_endian("ª