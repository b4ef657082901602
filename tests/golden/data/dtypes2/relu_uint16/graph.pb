
<
PlaceholderPlaceholder*
dtype0*
shape
:
"
ReluReluPlaceholder*
T0"ª