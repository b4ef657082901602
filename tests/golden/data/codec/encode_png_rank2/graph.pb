
6
PlaceholderPlaceholder*
shape:*
dtype0
H
	EncodePng	EncodePngPlaceholder*
compressionÿÿÿÿÿÿÿÿÿ*
T0"ª