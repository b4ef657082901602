
8
PlaceholderPlaceholder*
shape:*
dtype0
.

Reciprocal
ReciprocalPlaceholder*
T0"ª