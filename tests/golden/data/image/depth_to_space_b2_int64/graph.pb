
D
PlaceholderPlaceholder*
shape:*
dtype0	
[
DepthToSpaceDepthToSpacePlaceholder*
data_formatNHWC*
T0	*

block_size"ª