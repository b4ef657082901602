
<
PlaceholderPlaceholder*
shape
:*
dtype0
J
leaky_re_lu_1/LeakyRelu	LeakyReluPlaceholder*
T0*
alpha%š™™>"ª