
8
PlaceholderPlaceholder*
dtype0*
shape:
s
StringFormatStringFormatPlaceholder*
placeholder{}*
	summarize*

T
2*
template
v={} end"ª