
.
xPlaceholder*
dtype0*
shape:
.
yPlaceholder*
dtype0*
shape:

AsinhAsinhx*
T0

AtanhAtanhx*
T0

AcoshAcoshy*
T0

Acosh_1Acoshx*
T0"ª