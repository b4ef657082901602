
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
2
ListDiffListDiffxy*
T0*
out_idx0"ª