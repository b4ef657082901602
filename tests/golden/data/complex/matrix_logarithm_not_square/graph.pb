
Q
aPlaceholder*
dtype0*2
shape):'ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
.
MatrixLogarithmMatrixLogarithma*
T0"ª