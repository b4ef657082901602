
6
PlaceholderPlaceholder*
dtype0*
shape:
7
ParseTensorParseTensorPlaceholder*
out_type0"ª