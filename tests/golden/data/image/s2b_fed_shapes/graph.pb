
6
PlaceholderPlaceholder*
dtype0*
shape:
:
Placeholder_1Placeholder*
dtype0*
shape:
>
Placeholder_2Placeholder*
shape
:*
dtype0
y
SpaceToBatchNDSpaceToBatchNDPlaceholderPlaceholder_1Placeholder_2*
T0*
	Tpaddings0*
Tblock_shape0"ª