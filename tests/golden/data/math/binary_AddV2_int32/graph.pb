
8
PlaceholderPlaceholder*
shape:
*
dtype0
:
Placeholder_1Placeholder*
shape:
*
dtype0
3
AddV2AddV2PlaceholderPlaceholder_1*
T0"ª