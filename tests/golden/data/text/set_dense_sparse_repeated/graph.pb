
,
aPlaceholder*
dtype0*
shape:
4
	b_indicesPlaceholder*
dtype0	*
shape:
3
b_valuesPlaceholder*
dtype0*
shape:
2
b_shapePlaceholder*
dtype0	*
shape:
’
DenseToSparseSetOperationDenseToSparseSetOperationa	b_indicesb_valuesb_shape*
T0*
set_operationunion*
validate_indices("ª