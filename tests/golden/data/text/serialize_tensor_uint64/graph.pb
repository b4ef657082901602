
8
PlaceholderPlaceholder*
dtype0*
shape:
8
SerializeTensorSerializeTensorPlaceholder*
T0
;
ParseTensorParseTensorSerializeTensor*
out_type0"ª