
<
PlaceholderPlaceholder*
dtype0*
shape
:
*
DeepCopyDeepCopyPlaceholder*
T0"ª