
@
PlaceholderPlaceholder*
shape:*
dtype0
 
EluEluPlaceholder*
T0"ª