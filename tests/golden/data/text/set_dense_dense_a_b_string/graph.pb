
,
aPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
s
DenseToDenseSetOperationDenseToDenseSetOperationab*
T0*
set_operationa-b*
validate_indices("ª