
:
xPlaceholder*
shape:*
dtype0
q
AvgPoolAvgPoolx*
strides
*
T0*
data_formatNHWC*
paddingVALID*
ksize
"ª