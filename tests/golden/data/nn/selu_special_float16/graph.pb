
8
PlaceholderPlaceholder*
shape:*
dtype0
"
SeluSeluPlaceholder*
T0"ª