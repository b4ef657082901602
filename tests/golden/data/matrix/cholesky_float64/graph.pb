
@
PlaceholderPlaceholder*
shape:*
dtype0
*
CholeskyCholeskyPlaceholder*
T0"ª