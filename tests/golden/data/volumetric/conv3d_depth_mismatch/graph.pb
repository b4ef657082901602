
,
xPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
y
Conv3DConv3Dxf*
paddingVALID*
T0*
	dilations	
*
strides	
*
data_formatNDHWC"ª