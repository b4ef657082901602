
6
aPlaceholder*
dtype0*
shape:
2
dPlaceholder*
dtype0*
shape
:
.
MatrixLogarithmMatrixLogarithma*
T0
0
MatrixLogarithm_1MatrixLogarithmd*
T0"ª