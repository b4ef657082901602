
8
PlaceholderPlaceholder*
shape:*
dtype0
 
LogLogPlaceholder*
T0"ª