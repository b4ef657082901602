
2
indicesPlaceholder*
dtype0	*
shape:
1
valuesPlaceholder*
dtype0*
shape:
6
dense_shapePlaceholder*
dtype0	*
shape:
/
sizePlaceholder*
dtype0*
shape:
2
weightsPlaceholder*
dtype0*
shape:
w
SparseBincountSparseBincountindicesvaluesdense_shapesizeweights*

Tidx0*
T0*
binary_output("ª