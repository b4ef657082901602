
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
:
Placeholder_2Placeholder*
dtype0*
shape:
r
XlaDynamicUpdateSliceXlaDynamicUpdateSlicePlaceholderPlaceholder_1Placeholder_2*
Tindices0*
T0"ª