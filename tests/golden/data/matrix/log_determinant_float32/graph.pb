
@
PlaceholderPlaceholder*
dtype0*
shape:
B
LogMatrixDeterminantLogMatrixDeterminantPlaceholder*
T0"ª