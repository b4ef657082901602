
@
PlaceholderPlaceholder*
shape:*
dtype0
B
Placeholder_1Placeholder*
shape:*
dtype0
:
Placeholder_2Placeholder*
shape:*
dtype0
:
Placeholder_3Placeholder*
shape:*
dtype0
‰
QuantizeAndDequantizeV4GradQuantizeAndDequantizeV4GradPlaceholder_1PlaceholderPlaceholder_2Placeholder_3*

axis*
T0"ª