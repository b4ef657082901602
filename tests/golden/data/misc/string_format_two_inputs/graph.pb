
8
PlaceholderPlaceholder*
dtype0*
shape:
>
Placeholder_1Placeholder*
dtype0*
shape
:
†
StringFormatStringFormatPlaceholderPlaceholder_1*
	summarize*
placeholder%s*
T
2*
templatea %s b %s c"ª