
N
PlaceholderPlaceholder*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ*
dtype0
C
Placeholder_1Placeholder*
shape:ÿÿÿÿÿÿÿÿÿ*
dtype0	
~
#SparseSoftmaxCrossEntropyWithLogits#SparseSoftmaxCrossEntropyWithLogitsPlaceholderPlaceholder_1*
T0*
Tlabels0	"ª