
<
PlaceholderPlaceholder*
dtype0	*
shape
:
h
DataFormatDimMapDataFormatDimMapPlaceholder*
T0	*

dst_formatNDHWC*

src_formatNCDHW"ª