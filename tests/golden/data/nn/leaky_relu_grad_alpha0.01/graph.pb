
8
PlaceholderPlaceholder*
shape:*
dtype0
:
Placeholder_1Placeholder*
shape:*
dtype0
S
LeakyReluGradLeakyReluGradPlaceholderPlaceholder_1*
T0*
alpha%
×#<"ª