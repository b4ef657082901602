
6
PlaceholderPlaceholder*
shape:*
dtype0
[
DepthToSpaceDepthToSpacePlaceholder*
T0*
data_formatNHWC*

block_size"ª