
/
ind0Placeholder*
dtype0	*
shape:
/
val0Placeholder*
dtype0*
shape:
1
shape0Placeholder*
dtype0	*
shape:
/
ind1Placeholder*
dtype0	*
shape:
/
val1Placeholder*
dtype0	*
shape:
1
shape1Placeholder*
dtype0	*
shape:
1
dense0Placeholder*
dtype0*
shape:
.
sepPlaceholder*
dtype0*
shape:
Š
SparseCrossV2SparseCrossV2ind0ind1val0val1shape0shape1dense0sep*
N*
dense_types
2*
sparse_types
2	"ª