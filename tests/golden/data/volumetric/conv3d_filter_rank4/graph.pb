
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
T0*
strides	
*
	dilations	
*
data_formatNDHWC"ª