
4
	s_indicesPlaceholder*
dtype0	*
shape:
3
s_valuesPlaceholder*
dtype0*
shape:
2
s_shapePlaceholder*
dtype0	*
shape:
Q
SetSizeSetSize	s_indicess_valuess_shape*
T0*
validate_indices("ª