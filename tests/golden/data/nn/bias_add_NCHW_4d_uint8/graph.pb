
D
PlaceholderPlaceholder*
shape:*
dtype0
:
Placeholder_1Placeholder*
shape:*
dtype0
N
BiasAddBiasAddPlaceholderPlaceholder_1*
data_formatNCHW*
T0"ª