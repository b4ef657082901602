
@
PlaceholderPlaceholder*
shape:*
dtype0
"
ReluReluPlaceholder*
T0"ª