
.
xPlaceholder*
dtype0*
shape:

SigmoidSigmoidx*
T0"ª