
:
xPlaceholder*
dtype0*
shape:
p
AvgPoolAvgPoolx*
data_formatNHWC*
T0*
strides
*
paddingSAME*
ksize
"ª