
D
PlaceholderPlaceholder*
dtype0*
shape:
5
padsPlaceholder*
dtype0*
shape
:
[
SpaceToBatchSpaceToBatchPlaceholderpads*
	Tpaddings0*
T0*

block_size"ª