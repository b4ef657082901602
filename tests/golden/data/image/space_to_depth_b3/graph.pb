
D
PlaceholderPlaceholder*
shape:	*
dtype0
[
SpaceToDepthSpaceToDepthPlaceholder*

block_size*
data_formatNHWC*
T0"ª