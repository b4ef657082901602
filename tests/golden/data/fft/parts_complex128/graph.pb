
2
xPlaceholder*
dtype0*
shape
:
$
RealRealx*

Tout0*
T0
$
ImagImagx*

Tout0*
T0
)
Abs
ComplexAbsx*

Tout0*
T0
&
AngleAnglex*

Tout0*
T0

ConjConjx*
T0"ª