
<
PlaceholderPlaceholder*
shape
:*
dtype0
*
RGBToHSVRGBToHSVPlaceholder*
T0
'
HSVToRGBHSVToRGBRGBToHSV*
T0"ª