
D
PlaceholderPlaceholder*
shape:*
dtype0
5
LuLuPlaceholder*
T0*
output_idx_type0"ª