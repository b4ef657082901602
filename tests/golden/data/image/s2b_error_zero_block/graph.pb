
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
y
SpaceToBatchNDSpaceToBatchNDPlaceholderPlaceholder_1Placeholder_2*
Tblock_shape0*
	Tpaddings0*
T0"ª