
<
PlaceholderPlaceholder*
shape
:*
dtype0
:
Placeholder_1Placeholder*
shape:*
dtype0
1
ZetaZetaPlaceholderPlaceholder_1*
T0"ª