
,
xPlaceholder*
dtype0*
shape:
x
	AvgPool3D	AvgPool3Dx*
paddingVALID*
T0*
ksize	
*
strides	
*
data_formatNDHWC"ª