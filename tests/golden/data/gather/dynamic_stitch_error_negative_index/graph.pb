
6
	indices_0Placeholder*
shape:*
dtype0
3
data_0Placeholder*
shape:*
dtype0
C
DynamicStitchDynamicStitch	indices_0data_0*
T0*
N"ª