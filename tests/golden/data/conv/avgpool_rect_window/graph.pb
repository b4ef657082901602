
:
xPlaceholder*
shape:*
dtype0
p
AvgPoolAvgPoolx*
paddingSAME*
data_formatNHWC*
strides
*
T0*
ksize
"ª