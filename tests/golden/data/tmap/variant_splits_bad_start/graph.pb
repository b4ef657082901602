
6
PlaceholderPlaceholder*
dtype0	*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
ž
RaggedTensorToVariantRaggedTensorToVariantPlaceholderPlaceholder_1*
RAGGED_RANK*
Tsplits0	*
Tvalues0*
batched_input(:÷NÒ
£
RaggedTensorFromVariantRaggedTensorFromVariantRaggedTensorToVariant*
Tsplits0	*
Tvalues0* 
input_ragged_rankÿÿÿÿÿÿÿÿÿ*
output_ragged_rank"ª