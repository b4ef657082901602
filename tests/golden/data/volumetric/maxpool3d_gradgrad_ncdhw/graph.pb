
>
xPlaceholder*
dtype0*
shape:
x
	MaxPool3D	MaxPool3Dx*
paddingVALID*
T0*
ksize	
*
strides	
*
data_formatNCDHW
–
MaxPool3DGradGradMaxPool3DGradGradx	MaxPool3Dx*
paddingVALID*
T0*
ksize	
*
strides	
*
data_formatNCDHW"ª