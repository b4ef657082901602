
.
xPlaceholder*
shape:*
dtype0


WhereWherex*
T0
"ª