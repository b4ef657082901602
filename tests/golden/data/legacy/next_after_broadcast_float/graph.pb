
<
PlaceholderPlaceholder*
dtype0*
shape
:
:
Placeholder_1Placeholder*
dtype0*
shape:
;
	NextAfter	NextAfterPlaceholderPlaceholder_1*
T0"ª