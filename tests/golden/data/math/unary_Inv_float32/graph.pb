
8
PlaceholderPlaceholder*
shape:*
dtype0
 
InvInvPlaceholder*
T0"ª