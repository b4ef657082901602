
@
PlaceholderPlaceholder*
dtype0*
shape:
B
Placeholder_1Placeholder*
dtype0*
shape:
:
Placeholder_2Placeholder*
dtype0*
shape:
:
Placeholder_3Placeholder*
dtype0*
shape:
‰
QuantizeAndDequantizeV4GradQuantizeAndDequantizeV4GradPlaceholder_1PlaceholderPlaceholder_2Placeholder_3*

axis*
T0"ª