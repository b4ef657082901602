
3
v0Placeholder*
dtype0*
shape
:
3
v1Placeholder*
dtype0*
shape
:
O
ParallelConcatParallelConcatv0v1*
N*
T0*
shape
:"ª