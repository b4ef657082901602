
8
PlaceholderPlaceholder*
shape:*
dtype0
 
NegNegPlaceholder*
T0"ª