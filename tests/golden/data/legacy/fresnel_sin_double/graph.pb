
8
PlaceholderPlaceholder*
dtype0*
shape:
.

FresnelSin
FresnelSinPlaceholder*
T0"ª