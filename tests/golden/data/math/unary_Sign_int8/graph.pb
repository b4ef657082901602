
8
PlaceholderPlaceholder*
shape:*
dtype0
"
SignSignPlaceholder*
T0"ª