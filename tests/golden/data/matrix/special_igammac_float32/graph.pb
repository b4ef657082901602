
<
PlaceholderPlaceholder*
dtype0*
shape
:
:
Placeholder_1Placeholder*
dtype0*
shape:

7
IgammacIgammacPlaceholderPlaceholder_1*
T0"ª