
8
PlaceholderPlaceholder*
dtype0*
shape:
o
DataFormatVecPermuteDataFormatVecPermutePlaceholder*
T0*

dst_formatNCDHW*

src_formatNHWC"ª