
8
PlaceholderPlaceholder*
dtype0*
shape:
g
DataFormatDimMapDataFormatDimMapPlaceholder*
T0*

dst_formatNCDHW*

src_formatNHWC"ª