
8
PlaceholderPlaceholder*
dtype0*
shape:
<
Tile/multiplesConst*
dtype0*
valueB:
D
TileTilePlaceholderTile/multiples*
T0*

Tmultiples0"ª