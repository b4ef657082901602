
8
PlaceholderPlaceholder*
dtype0*
shape:
:
Placeholder_1Placeholder*
dtype0*
shape:
5
IgammaIgammaPlaceholderPlaceholder_1*
T0"ª