
@
PlaceholderPlaceholder*
dtype0*
shape:
B
Placeholder_1Placeholder*
dtype0*
shape:
o
BandedTriangularSolveBandedTriangularSolvePlaceholderPlaceholder_1*
T0*
adjoint(*
lower("ª