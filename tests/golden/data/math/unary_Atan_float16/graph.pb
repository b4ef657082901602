
8
PlaceholderPlaceholder*
shape:*
dtype0
"
AtanAtanPlaceholder*
T0"ª