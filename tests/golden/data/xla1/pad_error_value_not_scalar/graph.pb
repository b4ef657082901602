
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
:
Placeholder_3Placeholder*
dtype0*
shape:
:
Placeholder_4Placeholder*
dtype0*
shape:
r
XlaPadXlaPadPlaceholderPlaceholder_1Placeholder_2Placeholder_3Placeholder_4*
Tindices0*
T0"ª