
2
gPlaceholder*
dtype0*
shape
:
2
fPlaceholder*
dtype0*
shape
:
%
	Relu6Grad	Relu6Gradgf*
T0"ª