
<
PlaceholderPlaceholder*
dtype0*
shape
:
"
DiagDiagPlaceholder*
T0"ª