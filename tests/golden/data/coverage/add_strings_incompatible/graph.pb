
8
PlaceholderPlaceholder*
dtype0*
shape:
7
bPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
#
AddAddPlaceholderb*
T0"ª