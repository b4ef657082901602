
<
PlaceholderPlaceholder*
shape
:*
dtype0

3
ConstConst*
valueB:*
dtype0
;
AllAllPlaceholderConst*
	keep_dims(*

Tidx0"ª