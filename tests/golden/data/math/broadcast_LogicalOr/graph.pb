
<
PlaceholderPlaceholder*
shape
:*
dtype0

:
Placeholder_1Placeholder*
shape:*
dtype0

2
	LogicalOr	LogicalOrPlaceholderPlaceholder_1"ª