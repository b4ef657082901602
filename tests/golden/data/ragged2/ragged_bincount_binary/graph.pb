
1
splitsPlaceholder*
dtype0	*
shape:
1
valuesPlaceholder*
dtype0*
shape:
/
sizePlaceholder*
dtype0*
shape:
2
weightsPlaceholder*
dtype0*
shape:
i
RaggedBincountRaggedBincountsplitsvaluessizeweights*

Tidx0*
T0*
binary_output("ª