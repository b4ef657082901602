
6
PlaceholderPlaceholder*
shape:*
dtype0
*
RGBToHSVRGBToHSVPlaceholder*
T0"ª