
@
PlaceholderPlaceholder*
dtype0*
shape:
R
IsotonicRegressionIsotonicRegressionPlaceholder*
T0*
output_dtype0"ª