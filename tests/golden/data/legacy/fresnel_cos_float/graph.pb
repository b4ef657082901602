
8
PlaceholderPlaceholder*
dtype0*
shape:
.

FresnelCos
FresnelCosPlaceholder*
T0"ª