
<
PlaceholderPlaceholder*
dtype0*
shape
:
E
EinsumEinsumPlaceholder*
T0*
N*
equationij->ji"ª