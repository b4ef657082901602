
D
PlaceholderPlaceholder*
shape:*
dtype0
*
RGBToHSVRGBToHSVPlaceholder*
T0"ª