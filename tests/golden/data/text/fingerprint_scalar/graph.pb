
6
PlaceholderPlaceholder*
dtype0*
shape:
,
mPlaceholder*
dtype0*
shape:
3
FingerprintFingerprintPlaceholderm*
T0"ª