
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
8
Placeholder_2Placeholder*
dtype0*
shape:
8
Placeholder_3Placeholder*
dtype0*
shape:
8
Placeholder_4Placeholder*
dtype0*
shape:
8
Placeholder_5Placeholder*
dtype0*
shape:
8
Placeholder_6Placeholder*
dtype0*
shape:
8
Placeholder_7Placeholder*
dtype0*
shape:
‘
UniformQuantizedDotUniformQuantizedDotPlaceholderPlaceholder_1Placeholder_2Placeholder_3Placeholder_4Placeholder_5Placeholder_6Placeholder_7*	
Tin0*

Tout0*$
lhs_quantization_axisÿÿÿÿÿÿÿÿÿ*
lhs_quantization_max_val*'
lhs_quantization_min_val€ÿÿÿÿÿÿÿÿ*'
output_quantization_axisÿÿÿÿÿÿÿÿÿ*%
output_quantization_max_valÿÿÿÿ**
output_quantization_min_val€€€€øÿÿÿÿ*$
rhs_quantization_axisÿÿÿÿÿÿÿÿÿ*
rhs_quantization_max_val*'
rhs_quantization_min_val€ÿÿÿÿÿÿÿÿ"ª