
8
PlaceholderPlaceholder*
dtype0*
shape:
<
StringLowerStringLowerPlaceholder*
encodingutf-8"ª