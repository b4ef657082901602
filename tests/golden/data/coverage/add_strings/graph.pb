
<
PlaceholderPlaceholder*
dtype0*
shape
:
2
bPlaceholder*
dtype0*
shape
:
#
AddAddPlaceholderb*
T0"ª