
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
2
	EncodeWav	EncodeWavPlaceholderPlaceholder_1"ª