
<
PlaceholderPlaceholder*
dtype0*
shape
:
.
bPlaceholder*
dtype0*
shape:
#
AddAddPlaceholderb*
T0"ª