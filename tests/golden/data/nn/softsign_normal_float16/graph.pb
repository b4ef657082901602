
@
PlaceholderPlaceholder*
shape:*
dtype0
*
SoftsignSoftsignPlaceholder*
T0"ª