
8
PlaceholderPlaceholder*
shape:*
dtype0
"
RintRintPlaceholder*
T0"ª