
8
PlaceholderPlaceholder*
dtype0*
shape:
p
DataFormatVecPermuteDataFormatVecPermutePlaceholder*
T0*

dst_formatNHWCDE*

src_formatNHWC"ª