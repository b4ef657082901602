
6
PlaceholderPlaceholder*
dtype0*
shape:
:
Placeholder_1Placeholder*
dtype0*
shape:
>
Placeholder_2Placeholder*
dtype0*
shape
:
y
SpaceToBatchNDSpaceToBatchNDPlaceholderPlaceholder_1Placeholder_2*
Tblock_shape0*
	Tpaddings0*
T0"ª