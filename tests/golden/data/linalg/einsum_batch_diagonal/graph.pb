
@
PlaceholderPlaceholder*
dtype0*
shape:
J
EinsumEinsumPlaceholder*
T0*
equation...ii->...i*
N"ª