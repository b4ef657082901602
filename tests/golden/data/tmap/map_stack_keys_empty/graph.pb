
 
EmptyTensorMapEmptyTensorMap
I
TensorMapStackKeysTensorMapStackKeysEmptyTensorMap*
	key_dtype0"ª