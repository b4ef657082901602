
<
PlaceholderPlaceholder*
dtype0*
shape
:
0
idsPlaceholder*
dtype0*
shape:
C

SegmentMax
SegmentMaxPlaceholderids*
Tindices0*
T0"ª