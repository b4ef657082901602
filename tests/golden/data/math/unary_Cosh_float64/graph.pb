
8
PlaceholderPlaceholder*
shape:*
dtype0
"
CoshCoshPlaceholder*
T0"ª