
6
PlaceholderPlaceholder*
dtype0	*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
8
Placeholder_2Placeholder*
dtype0*
shape:
û
RaggedTensorToVariantRaggedTensorToVariantPlaceholderPlaceholder_1*
RAGGED_RANK*
Tsplits0	*
Tvalues0*
batched_input(:˜N“
è
RaggedTensorToVariantGradientRaggedTensorToVariantGradientRaggedTensorToVariantPlaceholderPlaceholder_2*
Tsplits0	*
Tvalues0"™