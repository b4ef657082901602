
8
PlaceholderPlaceholder*
dtype0*
shape:
f
DataFormatDimMapDataFormatDimMapPlaceholder*
T0*

dst_formatNHWW*

src_formatNHWC"ª