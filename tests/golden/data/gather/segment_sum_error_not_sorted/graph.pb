
1
dataPlaceholder*
shape:*
dtype0
0
idsPlaceholder*
shape:*
dtype0
<

SegmentSum
SegmentSumdataids*
T0*
Tindices0"ª