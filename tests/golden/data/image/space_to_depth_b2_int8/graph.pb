
D
PlaceholderPlaceholder*
dtype0*
shape:
[
SpaceToDepthSpaceToDepthPlaceholder*
T0*
data_formatNHWC*

block_size"ª