
:
xPlaceholder*
shape:*
dtype0
š
MaxPoolWithArgmaxMaxPoolWithArgmaxx*
Targmax0	*
T0*
include_batch_in_index(*
paddingSAME*
ksize
*
strides
"ª