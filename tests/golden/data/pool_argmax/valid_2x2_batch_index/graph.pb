
:
xPlaceholder*
shape:*
dtype0
›
MaxPoolWithArgmaxMaxPoolWithArgmaxx*
Targmax0	*
T0*
include_batch_in_index(*
paddingVALID*
ksize
*
strides
"ª