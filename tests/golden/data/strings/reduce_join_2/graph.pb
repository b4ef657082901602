
@
PlaceholderPlaceholder*
shape:*
dtype0
3
ConstConst*
valueB:*
dtype0
P

ReduceJoin
ReduceJoinPlaceholderConst*
	keep_dims(*
	separator, "ª