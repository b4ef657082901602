
8
PlaceholderPlaceholder*
dtype0*
shape:
|
StringFormatStringFormatPlaceholder*
	summarizeÿÿÿÿÿÿÿÿÿ*
placeholder{}*

T
2*
template
v={} end"ª