
2
xPlaceholder*
dtype0*
shape
:
3
loPlaceholder*
dtype0*
shape
:
3
hiPlaceholder*
dtype0*
shape
:
.
ClipByValueClipByValuexlohi*
T0"ª