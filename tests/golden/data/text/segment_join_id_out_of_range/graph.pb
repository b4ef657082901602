
6
PlaceholderPlaceholder*
dtype0*
shape:
.
idsPlaceholder*
dtype0*
shape:
.
numPlaceholder*
dtype0*
shape:
w
UnsortedSegmentJoinUnsortedSegmentJoinPlaceholderidsnum*
Tindices0*
Tnumsegments0*
	separator,"ª