
4
	a_indicesPlaceholder*
dtype0	*
shape:
3
a_valuesPlaceholder*
dtype0	*
shape:
2
a_shapePlaceholder*
dtype0	*
shape:
4
	b_indicesPlaceholder*
dtype0	*
shape:
3
b_valuesPlaceholder*
dtype0	*
shape:
2
b_shapePlaceholder*
dtype0	*
shape:
­
SparseToSparseSetOperationSparseToSparseSetOperation	a_indicesa_valuesa_shape	b_indicesb_valuesb_shape*
T0	*
set_operationb-a*
validate_indices("ª