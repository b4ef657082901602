
@
PlaceholderPlaceholder*
shape:*
dtype0
G
BiasAddGradBiasAddGradPlaceholder*
data_formatNCHW*
T0"ª