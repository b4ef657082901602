
D
PlaceholderPlaceholder*
dtype0*
shape:
*
RGBToHSVRGBToHSVPlaceholder*
T0"ª