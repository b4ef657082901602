
2
xPlaceholder*
shape
:*
dtype0
.
yPlaceholder*
shape:*
dtype0
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
T0"ª