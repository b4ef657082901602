
<
PlaceholderPlaceholder*
dtype0*
shape
:
,
	ZerosLike	ZerosLikePlaceholder*
T0"ª