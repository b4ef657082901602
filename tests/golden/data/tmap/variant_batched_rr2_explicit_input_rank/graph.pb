
6
PlaceholderPlaceholder*
dtype0	*
shape:
8
Placeholder_1Placeholder*
dtype0	*
shape:
8
Placeholder_2Placeholder*
dtype0*
shape:
­
RaggedTensorToVariantRaggedTensorToVariantPlaceholderPlaceholder_1Placeholder_2*
RAGGED_RANK*
Tsplits0	*
Tvalues0*
batched_input(:÷NÒ
š
RaggedTensorFromVariantRaggedTensorFromVariantRaggedTensorToVariant*
Tsplits0	*
Tvalues0*
input_ragged_rank*
output_ragged_rank"ª