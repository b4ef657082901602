
<
PlaceholderPlaceholder*
dtype0*
shape
:
s
StringFormatStringFormatPlaceholder*
	summarize*
placeholder{}*

T
2*
template
v={} end"ª