
<
PlaceholderPlaceholder*
dtype0*
shape
:
3
QrQrPlaceholder*
T0*
full_matrices("ª