
<
PlaceholderPlaceholder*
shape
:*
dtype0
:
Placeholder_1Placeholder*
shape:
*
dtype0
7
IgammacIgammacPlaceholderPlaceholder_1*
T0"ª