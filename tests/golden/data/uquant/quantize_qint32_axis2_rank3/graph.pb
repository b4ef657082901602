
@
PlaceholderPlaceholder*
dtype0*
shape:
:
Placeholder_1Placeholder*
dtype0*
shape:
:
Placeholder_2Placeholder*
dtype0*
shape:
Â
UniformQuantizeUniformQuantizePlaceholderPlaceholder_1Placeholder_2*	
Tin0*

Tout0*
quantization_axis*
quantization_max_valÿÿÿÿ*#
quantization_min_val€€€€øÿÿÿÿ"ª