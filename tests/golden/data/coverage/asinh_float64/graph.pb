
<
PlaceholderPlaceholder*
dtype0*
shape
:
$
AsinhAsinhPlaceholder*
T0"ª