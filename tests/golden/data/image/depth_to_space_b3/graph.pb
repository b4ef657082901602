
D
PlaceholderPlaceholder*
shape:*
dtype0
[
DepthToSpaceDepthToSpacePlaceholder*

block_size*
data_formatNHWC*
T0"ª