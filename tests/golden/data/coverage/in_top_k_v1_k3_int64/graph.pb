
<
PlaceholderPlaceholder*
dtype0*
shape
:
.
tPlaceholder*
dtype0	*
shape:
2
InTopKInTopKPlaceholdert*
T0	*
k"ª