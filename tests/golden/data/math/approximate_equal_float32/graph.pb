
8
PlaceholderPlaceholder*
shape:*
dtype0
:
Placeholder_1Placeholder*
shape:*
dtype0
]
ApproximateEqualApproximateEqualPlaceholderPlaceholder_1*
T0*
	tolerance%¬Å'7"ª