
@
PlaceholderPlaceholder*
shape:*
dtype0
<
	LeakyRelu	LeakyReluPlaceholder*
T0*
alpha%ÍÌL>"ª