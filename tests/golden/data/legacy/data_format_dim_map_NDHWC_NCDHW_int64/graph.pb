
<
PlaceholderPlaceholder*
dtype0	*
shape
:
h
DataFormatDimMapDataFormatDimMapPlaceholder*
T0	*

dst_formatNCDHW*

src_formatNDHWC"ª