
1
splitsPlaceholder*
dtype0	*
shape:
1
valuesPlaceholder*
dtype0	*
shape:
2
weightsPlaceholder*
dtype0*
shape:
§
RaggedCountSparseOutputRaggedCountSparseOutputsplitsvaluesweights*
T0	*
binary_output(*
	maxlength*
	minlengthÿÿÿÿÿÿÿÿÿ*
output_type0"ª