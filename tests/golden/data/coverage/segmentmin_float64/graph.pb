
<
PlaceholderPlaceholder*
dtype0*
shape
:
0
idsPlaceholder*
dtype0*
shape:
C

SegmentMin
SegmentMinPlaceholderids*
Tindices0*
T0"ª