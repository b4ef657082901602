
<
PlaceholderPlaceholder*
dtype0*
shape
:
>
Placeholder_1Placeholder*
dtype0*
shape
:
:
Placeholder_2Placeholder*
dtype0*
shape:
:
Placeholder_3Placeholder*
dtype0*
shape:
:
Placeholder_4Placeholder*
dtype0*
shape:
:
Placeholder_5Placeholder*
dtype0*
shape:
:
Placeholder_6Placeholder*
dtype0*
shape:
:
Placeholder_7Placeholder*
dtype0*
shape:
ð
UniformQuantizedAddUniformQuantizedAddPlaceholderPlaceholder_1Placeholder_2Placeholder_3Placeholder_4Placeholder_5Placeholder_6Placeholder_7*
T0*
lhs_quantization_axis*"
lhs_quantization_max_valÿÿÿÿ*'
lhs_quantization_min_val€€€€øÿÿÿÿ*
output_quantization_axis*%
output_quantization_max_valÿÿÿÿ**
output_quantization_min_val€€€€øÿÿÿÿ*
rhs_quantization_axis*"
rhs_quantization_max_valÿÿÿÿ*'
rhs_quantization_min_val€€€€øÿÿÿÿ"ª