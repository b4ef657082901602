
2
xPlaceholder*
dtype0*
shape
:
.
pPlaceholder*
dtype0*
shape:
D
ConjugateTransposeConjugateTransposexp*
Tperm0*
T0"ª