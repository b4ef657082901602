
8
PlaceholderPlaceholder*
shape:*
dtype0
"
SqrtSqrtPlaceholder*
T0"ª