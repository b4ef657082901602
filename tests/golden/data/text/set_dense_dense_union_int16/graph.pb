
,
aPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
u
DenseToDenseSetOperationDenseToDenseSetOperationab*
T0*
set_operationunion*
validate_indices("ª