
D
PlaceholderPlaceholder*
shape:*
dtype0
5
LuLuPlaceholder*
output_idx_type0*
T0"ª