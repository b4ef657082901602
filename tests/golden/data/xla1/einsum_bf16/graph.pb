
<
PlaceholderPlaceholder*
dtype0*
shape
:
>
Placeholder_1Placeholder*
dtype0*
shape
:
T
	XlaEinsum	XlaEinsumPlaceholderPlaceholder_1*
T0*
equation	ab,bc->ac"ª