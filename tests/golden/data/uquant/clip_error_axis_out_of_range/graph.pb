
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
8
Placeholder_2Placeholder*
dtype0*
shape:
8
Placeholder_3Placeholder*
dtype0*
shape:
8
Placeholder_4Placeholder*
dtype0*
shape:
ê
UniformQuantizedClipByValueUniformQuantizedClipByValuePlaceholderPlaceholder_1Placeholder_2Placeholder_3Placeholder_4*
T0*
quantization_axis*
quantization_max_valÿÿÿÿ*#
quantization_min_val€€€€øÿÿÿÿ"ª