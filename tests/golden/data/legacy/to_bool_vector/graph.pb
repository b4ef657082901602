
8
PlaceholderPlaceholder*
dtype0*
shape:
&
ToBoolToBoolPlaceholder*
T0"ª