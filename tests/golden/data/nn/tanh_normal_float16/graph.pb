
@
PlaceholderPlaceholder*
shape:*
dtype0
"
TanhTanhPlaceholder*
T0"ª