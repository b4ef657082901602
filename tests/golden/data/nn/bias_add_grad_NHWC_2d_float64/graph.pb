
<
PlaceholderPlaceholder*
shape
:*
dtype0
G
BiasAddGradBiasAddGradPlaceholder*
data_formatNHWC*
T0"ª