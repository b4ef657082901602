
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
.
in2Placeholder*
dtype0	*
shape:
3
NearestNeighborsNearestNeighborsin0in1in2"ª