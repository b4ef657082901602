
<
reverse_index_mapPlaceholder*
dtype0	*
shape:
6
grad_valuesPlaceholder*
dtype0*
shape:
[
RaggedFillEmptyRowsGradRaggedFillEmptyRowsGradreverse_index_mapgrad_values*
T0"ª