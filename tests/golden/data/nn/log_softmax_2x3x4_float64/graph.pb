
@
PlaceholderPlaceholder*
shape:*
dtype0
.

LogSoftmax
LogSoftmaxPlaceholder*
T0"ª