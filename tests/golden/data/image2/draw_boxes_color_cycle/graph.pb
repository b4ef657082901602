
D
PlaceholderPlaceholder*
dtype0*
shape:
B
Placeholder_1Placeholder*
dtype0*
shape:
K
DrawBoundingBoxesDrawBoundingBoxesPlaceholderPlaceholder_1*
T0"ª