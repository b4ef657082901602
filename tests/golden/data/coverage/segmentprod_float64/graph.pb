
<
PlaceholderPlaceholder*
dtype0*
shape
:
0
idsPlaceholder*
dtype0*
shape:
E
SegmentProdSegmentProdPlaceholderids*
Tindices0*
T0"ª