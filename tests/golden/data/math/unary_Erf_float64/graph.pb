
8
PlaceholderPlaceholder*
shape:*
dtype0
 
ErfErfPlaceholder*
T0"ª