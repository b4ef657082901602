
.
yPlaceholder*
dtype0*
shape:
/
dyPlaceholder*
dtype0*
shape:
$
TanhGradTanhGradydy*
T0
*
SigmoidGradSigmoidGradydy*
T0
$
SqrtGradSqrtGradydy*
T0
&
	RsqrtGrad	RsqrtGradydy*
T0
0
ReciprocalGradReciprocalGradydy*
T0
"
InvGradInvGradydy*
T0"ª