
/
v0Placeholder*
dtype0*
shape:
G
ParallelConcatParallelConcatv0*
N*
T0*
shape:"ª