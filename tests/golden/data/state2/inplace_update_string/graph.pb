
.
vPlaceholder*
dtype0*
shape:
9
ConstConst*
dtype0*
valueBBaBbBc
5
Const_1Const*
dtype0*
valueB:
:
InplaceUpdateInplaceUpdateConstConst_1v*
T0"ª