
9
dataPlaceholder*
shape:*
dtype0
;

partitionsPlaceholder*
shape
:*
dtype0
U
DynamicPartitionDynamicPartitiondata
partitions*
T0*
num_partitions"ª