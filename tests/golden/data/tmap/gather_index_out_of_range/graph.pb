
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
©
RaggedGatherRaggedGatherPlaceholderPlaceholder_1Placeholder_2*
OUTPUT_RAGGED_RANK*
PARAMS_RAGGED_RANK*
Tindices0*
Tsplits0	*
Tvalues0"ª