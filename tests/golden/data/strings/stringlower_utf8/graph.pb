
8
PlaceholderPlaceholder*
shape:*
dtype0
<
StringLowerStringLowerPlaceholder*
encodingutf-8"ª