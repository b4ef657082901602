
8
PlaceholderPlaceholder*
shape:*
dtype0
 
ExpExpPlaceholder*
T0"ª