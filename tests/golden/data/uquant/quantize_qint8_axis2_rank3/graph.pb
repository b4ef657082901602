
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
¾
UniformQuantizeUniformQuantizePlaceholderPlaceholder_1Placeholder_2*	
Tin0*

Tout0*
quantization_axis*
quantization_max_val*#
quantization_min_val€ÿÿÿÿÿÿÿÿ"ª