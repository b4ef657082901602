
6
PlaceholderPlaceholder*
dtype0*
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
ƒ
UniformQuantizedDotHybridUniformQuantizedDotHybridPlaceholderPlaceholder_1Placeholder_2Placeholder_3*

Tlhs0*

Tout0*

Trhs0*$
rhs_quantization_axisÿÿÿÿÿÿÿÿÿ*
rhs_quantization_max_val*'
rhs_quantization_min_val€ÿÿÿÿÿÿÿÿ"ª