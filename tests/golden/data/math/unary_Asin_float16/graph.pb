
8
PlaceholderPlaceholder*
shape:*
dtype0
"
AsinAsinPlaceholder*
T0"ª