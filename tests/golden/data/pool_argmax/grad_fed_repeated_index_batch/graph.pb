
:
xPlaceholder*
shape:*
dtype0
:
gPlaceholder*
shape:*
dtype0
?
argmaxPlaceholder*
shape:*
dtype0	
®
MaxPoolGradWithArgmaxMaxPoolGradWithArgmaxxgargmax*
Targmax0	*
T0*
strides
*
paddingVALID*
include_batch_in_index(*
ksize
"ª