
:
xPlaceholder*
dtype0*
shape:
p
AvgPoolAvgPoolx*
paddingSAME*
data_formatNHWC*
strides
*
T0*
ksize
"ª