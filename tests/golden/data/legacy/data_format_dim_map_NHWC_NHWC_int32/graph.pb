
<
PlaceholderPlaceholder*
dtype0*
shape
:
f
DataFormatDimMapDataFormatDimMapPlaceholder*
T0*

dst_formatNHWC*

src_formatNHWC"ª