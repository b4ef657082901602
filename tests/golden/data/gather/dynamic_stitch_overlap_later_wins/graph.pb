
6
	indices_0Placeholder*
shape:*
dtype0
3
data_0Placeholder*
shape:*
dtype0
6
	indices_1Placeholder*
shape:*
dtype0
3
data_1Placeholder*
shape:*
dtype0
V
DynamicStitchDynamicStitch	indices_0	indices_1data_0data_1*
T0*
N"ª