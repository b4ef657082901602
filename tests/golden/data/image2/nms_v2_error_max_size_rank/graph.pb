
6
PlaceholderPlaceholder*
dtype0*
shape:
:
Placeholder_1Placeholder*
dtype0*
shape:
8
Placeholder_2Placeholder*
dtype0*
shape:
8
Placeholder_3Placeholder*
dtype0*
shape:
€
NonMaxSuppressionV2NonMaxSuppressionV2PlaceholderPlaceholder_1Placeholder_3Placeholder_2*
T_threshold0*
T0"ª