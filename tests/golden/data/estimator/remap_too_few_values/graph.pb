
/
pathPlaceholder*
dtype0*
shape:
1
tensorPlaceholder*
dtype0*
shape:
/
rowsPlaceholder*
dtype0	*
shape:
/
colsPlaceholder*
dtype0	*
shape:
/
initPlaceholder*
dtype0*
shape:
‹
LoadAndRemapMatrixLoadAndRemapMatrixpathtensorrowscolsinit*!
max_rows_in_memoryÿÿÿÿÿÿÿÿÿ*
num_cols*
num_rows"ª