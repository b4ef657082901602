
<
PlaceholderPlaceholder*
shape
:*
dtype0
(
SoftmaxSoftmaxPlaceholder*
T0"ª