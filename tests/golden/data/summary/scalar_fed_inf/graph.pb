
8
PlaceholderPlaceholder*
dtype0*
shape:
:
Placeholder_1Placeholder*
dtype0*
shape:
C
ScalarSummaryScalarSummaryPlaceholderPlaceholder_1*
T0"ª