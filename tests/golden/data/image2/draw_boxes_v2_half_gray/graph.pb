
D
PlaceholderPlaceholder*
dtype0*
shape:
B
Placeholder_1Placeholder*
dtype0*
shape:
>
Placeholder_2Placeholder*
dtype0*
shape
:
^
DrawBoundingBoxesV2DrawBoundingBoxesV2PlaceholderPlaceholder_1Placeholder_2*
T0"ª