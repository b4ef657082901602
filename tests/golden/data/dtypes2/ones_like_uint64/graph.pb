
<
PlaceholderPlaceholder*
dtype0*
shape
:
*
OnesLikeOnesLikePlaceholder*
T0"ª