
D
PlaceholderPlaceholder*
dtype0*
shape:
5
LuLuPlaceholder*
T0*
output_idx_type0	"ª