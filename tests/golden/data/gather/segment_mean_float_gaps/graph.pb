
5
dataPlaceholder*
shape
:*
dtype0
0
idsPlaceholder*
shape:*
dtype0
>
SegmentMeanSegmentMeandataids*
T0*
Tindices0"ª