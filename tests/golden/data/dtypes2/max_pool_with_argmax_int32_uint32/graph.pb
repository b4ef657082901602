
D
PlaceholderPlaceholder*
dtype0*
shape:
¤
MaxPoolWithArgmaxMaxPoolWithArgmaxPlaceholder*
Targmax0*
T0*
include_batch_in_index(*
ksize
*
paddingSAME*
strides
"ª