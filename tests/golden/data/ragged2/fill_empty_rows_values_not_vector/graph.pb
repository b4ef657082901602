
7
value_rowidsPlaceholder*
dtype0	*
shape:
1
valuesPlaceholder*
dtype0*
shape:
0
nrowsPlaceholder*
dtype0	*
shape:
8
default_valuePlaceholder*
dtype0*
shape:
_
RaggedFillEmptyRowsRaggedFillEmptyRowsvalue_rowidsvaluesnrowsdefault_value*
T0"ª