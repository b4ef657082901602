
2
aPlaceholder*
dtype0*
shape
:
3
EigEiga*

Tout0*
T0*
	compute_v("ª