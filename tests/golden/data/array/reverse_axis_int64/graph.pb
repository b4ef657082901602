
<
PlaceholderPlaceholder*
dtype0*
shape
:
3
ConstConst*
dtype0	*
valueB	R
?
	ReverseV2	ReverseV2PlaceholderConst*
T0*

Tidx0	"ª