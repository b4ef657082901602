
N
PlaceholderPlaceholder*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ*
dtype0
C
Placeholder_1Placeholder*
shape:ÿÿÿÿÿÿÿÿÿ*
dtype0
N
BiasAddBiasAddPlaceholderPlaceholder_1*
data_formatNHWC*
T0"ª