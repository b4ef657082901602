
8
PlaceholderPlaceholder*
shape:*
dtype0
$
FloorFloorPlaceholder*
T0"ª