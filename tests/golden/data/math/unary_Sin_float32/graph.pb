
8
PlaceholderPlaceholder*
shape:*
dtype0
 
SinSinPlaceholder*
T0"ª