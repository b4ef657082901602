
,
aPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
|
DenseToDenseSetOperationDenseToDenseSetOperationab*
T0*
set_operationintersection*
validate_indices("ª