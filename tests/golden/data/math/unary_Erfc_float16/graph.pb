
8
PlaceholderPlaceholder*
shape:*
dtype0
"
ErfcErfcPlaceholder*
T0"ª