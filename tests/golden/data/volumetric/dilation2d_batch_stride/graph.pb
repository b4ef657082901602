
,
xPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
c

Dilation2D
Dilation2Dxf*
T0*
strides
*
paddingVALID*
rates
"ª