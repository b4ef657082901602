
8
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
8
Placeholder_2Placeholder*
dtype0*
shape:
c
RequantizationRangeRequantizationRangePlaceholderPlaceholder_1Placeholder_2*
Tinput0"ª