
8
PlaceholderPlaceholder*
shape:*
dtype0
 
CosCosPlaceholder*
T0"ª