
8
PlaceholderPlaceholder*
shape:*
dtype0"ª