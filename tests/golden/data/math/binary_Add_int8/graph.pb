
8
PlaceholderPlaceholder*
shape:
*
dtype0
:
Placeholder_1Placeholder*
shape:
*
dtype0
/
AddAddPlaceholderPlaceholder_1*
T0"ª