
D
PlaceholderPlaceholder*
dtype0*
shape:
[
DepthToSpaceDepthToSpacePlaceholder*
data_formatNHWC*
T0*

block_size"ª