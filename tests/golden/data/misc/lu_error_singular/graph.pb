
<
PlaceholderPlaceholder*
dtype0*
shape
:
5
LuLuPlaceholder*
output_idx_type0*
T0"ª