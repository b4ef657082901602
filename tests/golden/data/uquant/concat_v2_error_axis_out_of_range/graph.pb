
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
8
Placeholder_2Placeholder*
dtype0*
shape:
8
Placeholder_3Placeholder*
dtype0*
shape:
8
Placeholder_4Placeholder*
dtype0*
shape:
8
Placeholder_5Placeholder*
dtype0*
shape:
8
Placeholder_6Placeholder*
dtype0*
shape:
«
QuantizedConcatV2QuantizedConcatV2PlaceholderPlaceholder_1Placeholder_2Placeholder_3Placeholder_4Placeholder_5Placeholder_6*
N*

Tidx0*
T0"ª