
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
R
EncodeJpegVariableQualityEncodeJpegVariableQualityPlaceholderPlaceholder_1"ª