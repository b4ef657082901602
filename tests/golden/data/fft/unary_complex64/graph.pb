
2
xPlaceholder*
dtype0*
shape
:

NegNegx*
T0

SquareSquarex*
T0

ExpExpx*
T0

LogLogx*
T0

SqrtSqrtx*
T0

RsqrtRsqrtx*
T0
$

Reciprocal
Reciprocalx*
T0"ª