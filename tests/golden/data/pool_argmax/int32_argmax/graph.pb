
:
xPlaceholder*
shape:*
dtype0
š
MaxPoolWithArgmaxMaxPoolWithArgmaxx*
Targmax0*
T0*
strides
*
paddingSAME*
include_batch_in_index(*
ksize
"ª