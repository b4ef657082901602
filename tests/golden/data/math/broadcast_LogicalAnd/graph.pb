
<
PlaceholderPlaceholder*
shape
:*
dtype0

:
Placeholder_1Placeholder*
shape:*
dtype0

4

LogicalAnd
LogicalAndPlaceholderPlaceholder_1"ª