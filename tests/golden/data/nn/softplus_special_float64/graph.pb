
8
PlaceholderPlaceholder*
shape:*
dtype0
*
SoftplusSoftplusPlaceholder*
T0"ª