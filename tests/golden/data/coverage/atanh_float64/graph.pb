
<
PlaceholderPlaceholder*
dtype0*
shape
:
$
AtanhAtanhPlaceholder*
T0"ª