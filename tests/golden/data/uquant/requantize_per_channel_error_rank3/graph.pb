
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
8
Placeholder_2Placeholder*
dtype0*
shape:
8
Placeholder_3Placeholder*
dtype0*
shape:
8
Placeholder_4Placeholder*
dtype0*
shape:
Ž
RequantizePerChannelRequantizePerChannelPlaceholderPlaceholder_1Placeholder_2Placeholder_3Placeholder_4*
T0*
out_type0"ª