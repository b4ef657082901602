
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
dtype0	*
shape:
8
Placeholder_3Placeholder*
dtype0	*
shape:
¼
RaggedTensorToVariantRaggedTensorToVariantPlaceholderPlaceholder_1Placeholder_2Placeholder_3*
RAGGED_RANK*
Tsplits0	*
Tvalues0	*
batched_input(:÷NÐ
£
RaggedTensorFromVariantRaggedTensorFromVariantRaggedTensorToVariant*
Tsplits0	*
Tvalues0	* 
input_ragged_rankÿÿÿÿÿÿÿÿÿ*
output_ragged_rank"ª