
.
rv0Placeholder*
dtype0*
shape:
.
rv1Placeholder*
dtype0	*
shape:
.
rs0Placeholder*
dtype0	*
shape:
.
rs1Placeholder*
dtype0	*
shape:
.
si0Placeholder*
dtype0	*
shape:
.
sv0Placeholder*
dtype0	*
shape:
.
ss0Placeholder*
dtype0	*
shape:
-
d0Placeholder*
dtype0*
shape:
Ã
RaggedCrossRaggedCrossrv0rv1rs0rs1si0sv0ss0d0*
Nsparse*
dense_types
2*
hash_key*
hashed_output(*
input_orderRSRD*
num_bucketsd*
out_row_splits_type0	*
out_values_type0	*
ragged_splits_types
2		*
ragged_values_types
2	*
sparse_values_types
2	"ª