
6
PlaceholderPlaceholder*
dtype0	*
shape:
š
UniformCandidateSamplerUniformCandidateSamplerPlaceholder*
num_sampled*
num_true*
	range_max*
seed2*

seed*
unique("ª