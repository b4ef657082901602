
8
PlaceholderPlaceholder*
shape:*
dtype0
$
RsqrtRsqrtPlaceholder*
T0"ª