
8
PlaceholderPlaceholder*
shape:*
dtype0
:
Placeholder_1Placeholder*
shape:*
dtype0
5
IgammaIgammaPlaceholderPlaceholder_1*
T0"ª