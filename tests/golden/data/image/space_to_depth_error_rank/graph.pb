
6
PlaceholderPlaceholder*
dtype0*
shape:
[
SpaceToDepthSpaceToDepthPlaceholder*
data_formatNHWC*
T0*

block_size"ª