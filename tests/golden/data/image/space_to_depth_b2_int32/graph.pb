
D
PlaceholderPlaceholder*
shape:*
dtype0
[
SpaceToDepthSpaceToDepthPlaceholder*
data_formatNHWC*
T0*

block_size"ª