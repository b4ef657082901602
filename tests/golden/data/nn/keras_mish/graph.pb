
<
PlaceholderPlaceholder*
shape
:*
dtype0
*
SoftplusSoftplusPlaceholder*
T0

TanhTanhSoftplus*
T0
&
mulMulPlaceholderTanh*
T0"ª