
@
PlaceholderPlaceholder*
dtype0*
shape:
:
Placeholder_1Placeholder*
dtype0*
shape:
:
Placeholder_2Placeholder*
dtype0*
shape:
‹

Dequantize
DequantizePlaceholderPlaceholder_1Placeholder_2*
T0*

axis*
dtype0*
modeSCALED*
narrow_range("ª