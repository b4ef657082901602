
6
PlaceholderPlaceholder*
shape:*
dtype0
[
SpaceToDepthSpaceToDepthPlaceholder*
data_formatNHWC*

block_size*
T0"ª