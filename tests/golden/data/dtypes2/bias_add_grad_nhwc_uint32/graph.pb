
D
PlaceholderPlaceholder*
dtype0*
shape:
G
BiasAddGradBiasAddGradPlaceholder*
T0*
data_formatNHWC"ª