
D
PlaceholderPlaceholder*
shape:*
dtype0
*
HSVToRGBHSVToRGBPlaceholder*
T0"ª