
:
xPlaceholder*
shape:*
dtype0
.
kPlaceholder*
dtype0*
shape:
.
sPlaceholder*
dtype0*
shape:
S
	MaxPoolV2	MaxPoolV2xks*
T0*
data_formatNHWC*
paddingVALID"ª