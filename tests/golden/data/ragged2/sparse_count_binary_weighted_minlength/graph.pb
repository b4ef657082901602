
2
indicesPlaceholder*
dtype0	*
shape:
1
valuesPlaceholder*
dtype0	*
shape:
6
dense_shapePlaceholder*
dtype0	*
shape:
2
weightsPlaceholder*
dtype0*
shape:
µ
SparseCountSparseOutputSparseCountSparseOutputindicesvaluesdense_shapeweights*
T0	*
binary_output(*
	maxlengthÿÿÿÿÿÿÿÿÿ*
	minlength*
output_type0"ª