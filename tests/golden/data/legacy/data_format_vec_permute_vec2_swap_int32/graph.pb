
8
PlaceholderPlaceholder*
dtype0*
shape:
n
DataFormatVecPermuteDataFormatVecPermutePlaceholder*
T0*

dst_formatNWHC*

src_formatNHWC"ª