
3
v0Placeholder*
dtype0*
shape
:
3
v1Placeholder*
dtype0*
shape
:
3
v2Placeholder*
dtype0*
shape
:
S
ParallelConcatParallelConcatv0v1v2*
N*
T0*
shape
:"ª