
1
valuesPlaceholder*
dtype0	*
shape:
2
weightsPlaceholder*
dtype0*
shape:

DenseCountSparseOutputDenseCountSparseOutputvaluesweights*
T0	*
binary_output(*
	maxlength*
	minlengthÿÿÿÿÿÿÿÿÿ*
output_type0"ª