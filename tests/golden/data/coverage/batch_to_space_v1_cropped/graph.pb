
D
PlaceholderPlaceholder*
dtype0*
shape:
6
cropsPlaceholder*
dtype0	*
shape
:
W
BatchToSpaceBatchToSpacePlaceholdercrops*

Tidx0	*
T0*

block_size"ª