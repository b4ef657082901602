
8
PlaceholderPlaceholder*
shape:*
dtype0
$
Log1pLog1pPlaceholder*
T0"ª