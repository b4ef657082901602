
3
tensorPlaceholder*
shape:*
dtype0
8
indicesPlaceholder*
shape
:*
dtype0
4
updatesPlaceholder*
shape:*
dtype0
w
TensorScatterAddTensorScatterAddtensorindicesupdates*
T0*
Tindices0*
bad_indices_policyIGNORE"ª