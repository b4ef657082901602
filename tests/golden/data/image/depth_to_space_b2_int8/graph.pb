
D
PlaceholderPlaceholder*
shape:*
dtype0
[
DepthToSpaceDepthToSpacePlaceholder*
data_formatNHWC*

block_size*
T0"ª