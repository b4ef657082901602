
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
shape:*
dtype0
2
	EncodeWav	EncodeWavPlaceholderPlaceholder_1"ª