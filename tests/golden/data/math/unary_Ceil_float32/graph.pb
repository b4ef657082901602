
8
PlaceholderPlaceholder*
shape:*
dtype0
"
CeilCeilPlaceholder*
T0"ª