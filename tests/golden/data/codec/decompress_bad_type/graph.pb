
8
PlaceholderPlaceholder*
shape:*
dtype0
L
DecodeCompressedDecodeCompressedPlaceholder*
compression_typeBZ2"ª