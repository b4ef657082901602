
<
PlaceholderPlaceholder*
dtype0*
shape
:
p
DataFormatVecPermuteDataFormatVecPermutePlaceholder*
T0*

dst_formatNCDHW*

src_formatNDHWC"ª