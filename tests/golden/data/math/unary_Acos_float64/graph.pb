
8
PlaceholderPlaceholder*
shape:*
dtype0
"
AcosAcosPlaceholder*
T0"ª