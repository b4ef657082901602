
<
PlaceholderPlaceholder*
shape
:*
dtype0
M
DecodeCompressedDecodeCompressedPlaceholder*
compression_typeGZIP"ª