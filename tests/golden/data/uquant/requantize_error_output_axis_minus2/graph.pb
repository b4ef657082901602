
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
8
Placeholder_2Placeholder*
dtype0*
shape:
8
Placeholder_3Placeholder*
dtype0*
shape:
8
Placeholder_4Placeholder*
dtype0*
shape:
ó
UniformRequantizeUniformRequantizePlaceholderPlaceholder_1Placeholder_2Placeholder_3Placeholder_4*	
Tin0*

Tout0*&
input_quantization_axisÿÿÿÿÿÿÿÿÿ* 
input_quantization_max_val*)
input_quantization_min_val€ÿÿÿÿÿÿÿÿ*'
output_quantization_axisþÿÿÿÿÿÿÿÿ*!
output_quantization_max_val**
output_quantization_min_val€ÿÿÿÿÿÿÿÿ"ª