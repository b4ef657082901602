
2
xPlaceholder*
dtype0*
shape
:
.
yPlaceholder*
dtype0*
shape:
.
zPlaceholder*
dtype0*
shape:

AddAddV2xy*
T0

Add_1Addxy*
T0

SubSubxy*
T0

MulMulxy*
T0
!
RealDivRealDivxy*
T0

DivDivxy*
T0

Add_2AddV2xx*
T0
%

div_no_nanDivNoNanxz*
T0
*
multiply_no_nanMulNoNanxz*
T0"ª