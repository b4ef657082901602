
,
xPlaceholder*
dtype0*
shape:
x
	MaxPool3D	MaxPool3Dx*
paddingVALID*
T0*
ksize	
*
strides	
*
data_formatNDHWC"ª