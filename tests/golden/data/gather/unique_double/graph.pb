
.
xPlaceholder*
shape:*
dtype0
+
UniqueUniquex*
out_idx0*
T0"ª