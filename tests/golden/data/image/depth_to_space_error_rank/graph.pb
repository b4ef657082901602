
6
PlaceholderPlaceholder*
dtype0*
shape:
[
DepthToSpaceDepthToSpacePlaceholder*
T0*
data_formatNHWC*

block_size"ª