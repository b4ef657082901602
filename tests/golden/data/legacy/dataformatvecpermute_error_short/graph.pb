
8
PlaceholderPlaceholder*
dtype0*
shape:
l
DataFormatVecPermuteDataFormatVecPermutePlaceholder*
T0*

dst_formatNHW*

src_formatNHW"ª