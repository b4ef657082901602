
8
indicesPlaceholder*
shape
:*
dtype0
4
updatesPlaceholder*
shape:*
dtype0
2
shapePlaceholder*
shape:*
dtype0
h
	ScatterNd	ScatterNdindicesupdatesshape*
T0*
bad_indices_policyIGNORE*
Tindices0"ª