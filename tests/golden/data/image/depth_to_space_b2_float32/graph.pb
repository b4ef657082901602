
D
PlaceholderPlaceholder*
shape:*
dtype0
[
DepthToSpaceDepthToSpacePlaceholder*

block_size*
T0*
data_formatNHWC"ª