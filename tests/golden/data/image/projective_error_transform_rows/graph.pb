
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
8
Placeholder_2Placeholder*
dtype0*
shape:
8
Placeholder_3Placeholder*
dtype0*
shape:
µ
ImageProjectiveTransformV3ImageProjectiveTransformV3PlaceholderPlaceholder_1Placeholder_2Placeholder_3*
	fill_mode
CONSTANT*
dtype0*
interpolation
BILINEAR"ª