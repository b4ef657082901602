
:
xPlaceholder*
dtype0*
shape:
p
AvgPoolAvgPoolx*
T0*
data_formatNHWC*
strides
*
paddingSAME*
ksize
"ª