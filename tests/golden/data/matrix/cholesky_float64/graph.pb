
@
PlaceholderPlaceholder*
dtype0*
shape:
*
CholeskyCholeskyPlaceholder*
T0"ª