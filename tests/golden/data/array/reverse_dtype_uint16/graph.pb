
<
PlaceholderPlaceholder*
dtype0*
shape
:
<
ReverseV2/axisConst*
dtype0*
valueB:
H
	ReverseV2	ReverseV2PlaceholderReverseV2/axis*
T0*

Tidx0"ª