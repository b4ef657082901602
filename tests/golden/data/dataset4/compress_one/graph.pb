
7
ConstConst*
dtype0*
valueB:
?
CompressElementCompressElementConst*
input_types
2
g
UncompressElementUncompressElementCompressElement*
output_shapes
:*
output_types
2"ª