
8
PlaceholderPlaceholder*
shape:*
dtype0
M
DecodeCompressedDecodeCompressedPlaceholder*
compression_typeZLIB"ª