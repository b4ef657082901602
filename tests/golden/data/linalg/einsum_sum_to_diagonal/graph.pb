
<
PlaceholderPlaceholder*
dtype0*
shape
:
E
EinsumEinsumPlaceholder*
T0*
equationij->jj*
N"ª