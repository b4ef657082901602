
<
PlaceholderPlaceholder*
shape
:*
dtype0
:
Placeholder_1Placeholder*
shape:*
dtype0
;
	Polygamma	PolygammaPlaceholderPlaceholder_1*
T0"ª