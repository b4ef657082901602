
8
PlaceholderPlaceholder*
dtype0*
shape:
$
DawsnDawsnPlaceholder*
T0"ª