
.
xPlaceholder*
shape:*
dtype0

+
UniqueUniquex*
T0
*
out_idx0"ª