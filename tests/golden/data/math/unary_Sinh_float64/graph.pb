
8
PlaceholderPlaceholder*
shape:*
dtype0
"
SinhSinhPlaceholder*
T0"ª