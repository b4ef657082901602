
/
ind0Placeholder*
dtype0	*
shape:
/
val0Placeholder*
dtype0	*
shape:
1
shape0Placeholder*
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
u
SparseCrossV2SparseCrossV2ind0val0shape0dense0sep*
N*
dense_types
2*
sparse_types
2	"ª