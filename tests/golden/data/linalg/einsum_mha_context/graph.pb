
D
PlaceholderPlaceholder*
dtype0*
shape:
F
Placeholder_1Placeholder*
dtype0*
shape:
]
EinsumEinsumPlaceholderPlaceholder_1*
T0*
equationacbe,aecd->abcd*
N"ª