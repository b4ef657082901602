
<
PlaceholderPlaceholder*
dtype0*
shape
:
*
HSVToRGBHSVToRGBPlaceholder*
T0"ª