
:
xPlaceholder*
shape:*
dtype0
q
AvgPoolAvgPoolx*
paddingVALID*
data_formatNCHW*
strides
*
T0*
ksize
"ª