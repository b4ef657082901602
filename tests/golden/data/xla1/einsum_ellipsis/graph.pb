
@
PlaceholderPlaceholder*
dtype0*
shape:
B
Placeholder_1Placeholder*
dtype0*
shape:
]
	XlaEinsum	XlaEinsumPlaceholderPlaceholder_1*
T0* 
equation...ab,...bc->...ac"ª