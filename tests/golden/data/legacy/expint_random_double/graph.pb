
<
PlaceholderPlaceholder*
dtype0*
shape
:
&
ExpintExpintPlaceholder*
T0"ª