
<
PlaceholderPlaceholder*
dtype0*
shape
:
>
Placeholder_1Placeholder*
dtype0*
shape
:
˜
SparseMatMulSparseMatMulPlaceholderPlaceholder_1*
Ta0*
Tb0*
a_is_sparse(*
b_is_sparse(*
transpose_a(*
transpose_b("ª