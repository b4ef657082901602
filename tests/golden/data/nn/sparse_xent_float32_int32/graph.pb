
<
PlaceholderPlaceholder*
shape
:*
dtype0
:
Placeholder_1Placeholder*
shape:*
dtype0
~
#SparseSoftmaxCrossEntropyWithLogits#SparseSoftmaxCrossEntropyWithLogitsPlaceholderPlaceholder_1*
T0*
Tlabels0"ª