
:
xPlaceholder*
shape:*
dtype0
p
AvgPoolAvgPoolx*
paddingSAME*
strides
*
data_formatNHWC*
T0*
ksize
"ª