
D
PlaceholderPlaceholder*
shape:*
dtype0
[
SpaceToDepthSpaceToDepthPlaceholder*
T0*
data_formatNHWC*

block_size"ª