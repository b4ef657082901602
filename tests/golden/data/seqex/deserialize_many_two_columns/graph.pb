
5

serializedPlaceholder*
dtype0*
shape:
G
DeserializeManySparseDeserializeManySparse
serialized*
dtype0"ª