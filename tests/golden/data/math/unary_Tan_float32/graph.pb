
8
PlaceholderPlaceholder*
shape:*
dtype0
 
TanTanPlaceholder*
T0"ª