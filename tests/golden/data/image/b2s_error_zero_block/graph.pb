
6
PlaceholderPlaceholder*
shape:*
dtype0
:
Placeholder_1Placeholder*
shape:*
dtype0
>
Placeholder_2Placeholder*
shape
:*
dtype0
v
BatchToSpaceNDBatchToSpaceNDPlaceholderPlaceholder_1Placeholder_2*
Tblock_shape0*
Tcrops0*
T0"ª