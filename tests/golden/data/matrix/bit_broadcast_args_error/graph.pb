
8
PlaceholderPlaceholder*
dtype0*
shape:
:
Placeholder_1Placeholder*
dtype0*
shape:
C
BroadcastArgsBroadcastArgsPlaceholderPlaceholder_1*
T0"ª