
:
xPlaceholder*
shape:*
dtype0
š
MaxPoolWithArgmaxMaxPoolWithArgmaxx*
Targmax0	*
T0*
strides
*
paddingSAME*
ksize
*
include_batch_in_index("ª