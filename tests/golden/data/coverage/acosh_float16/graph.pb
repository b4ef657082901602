
<
PlaceholderPlaceholder*
dtype0*
shape
:
$
AcoshAcoshPlaceholder*
T0"ª