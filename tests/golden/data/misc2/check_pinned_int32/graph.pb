
8
PlaceholderPlaceholder*
dtype0*
shape:
0
CheckPinnedCheckPinnedPlaceholder*
T0"ª