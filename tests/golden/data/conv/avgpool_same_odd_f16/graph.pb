
:
xPlaceholder*
dtype0*
shape:
p
AvgPoolAvgPoolx*
strides
*
T0*
data_formatNHWC*
paddingSAME*
ksize
"ª