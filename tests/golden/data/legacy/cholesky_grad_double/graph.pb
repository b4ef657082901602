
@
PlaceholderPlaceholder*
dtype0*
shape:
B
Placeholder_1Placeholder*
dtype0*
shape:
A
CholeskyGradCholeskyGradPlaceholderPlaceholder_1*
T0"ª