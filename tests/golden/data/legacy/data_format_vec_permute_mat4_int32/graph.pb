
<
PlaceholderPlaceholder*
dtype0*
shape
:
n
DataFormatVecPermuteDataFormatVecPermutePlaceholder*
T0*

dst_formatNCHW*

src_formatNHWC"ª