
.
xPlaceholder*
dtype0*
shape:

$
RealRealx*
T0*

Tout0
$
ImagImagx*
T0*

Tout0
0

ComplexAbs
ComplexAbsx*
T0*

Tout0
&
AngleAnglex*
T0*

Tout0

ConjConjx*
T0"ª