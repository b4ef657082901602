
7
v0Placeholder*
dtype0*
shape:
7
v1Placeholder*
dtype0*
shape:
S
ParallelConcatParallelConcatv0v1*
N*
T0*
shape:"ª