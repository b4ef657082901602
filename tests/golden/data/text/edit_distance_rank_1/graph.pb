
4
	h_indicesPlaceholder*
dtype0	*
shape:
3
h_valuesPlaceholder*
dtype0	*
shape:
2
h_shapePlaceholder*
dtype0	*
shape:
4
	t_indicesPlaceholder*
dtype0	*
shape:
3
t_valuesPlaceholder*
dtype0	*
shape:
2
t_shapePlaceholder*
dtype0	*
shape:
r
EditDistanceEditDistance	h_indicesh_valuesh_shape	t_indicest_valuest_shape*
T0	*
	normalize("ª