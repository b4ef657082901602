
<
PlaceholderPlaceholder*
dtype0*
shape
:
|
StringFormatStringFormatPlaceholder*
placeholder{}*
	summarizeÿÿÿÿÿÿÿÿÿ*

T
2*
template
v={} end"ª