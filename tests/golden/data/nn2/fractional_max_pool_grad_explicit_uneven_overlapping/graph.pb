
D
PlaceholderPlaceholder*
dtype0*
shape:
:
Placeholder_1Placeholder*
dtype0	*
shape:
:
Placeholder_2Placeholder*
dtype0	*
shape:
F
Placeholder_3Placeholder*
dtype0*
shape:
F
Placeholder_4Placeholder*
dtype0*
shape:
“
FractionalMaxPoolGradFractionalMaxPoolGradPlaceholderPlaceholder_3Placeholder_4Placeholder_1Placeholder_2*
T0*
overlapping("ª