
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
1
dense0Placeholder*
dtype0*
shape:
6
num_bucketsPlaceholder*
dtype0	*
shape:
6
strong_hashPlaceholder*
dtype0
*
shape:
/
saltPlaceholder*
dtype0	*
shape:
˜
SparseCrossHashedSparseCrossHashedind0val0shape0dense0num_bucketsstrong_hashsalt*
N*
dense_types
2*
sparse_types
2"ª