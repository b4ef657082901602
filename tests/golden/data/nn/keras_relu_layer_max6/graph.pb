
<
PlaceholderPlaceholder*
shape
:*
dtype0
,
re_lu_1/Relu6Relu6Placeholder*
T0"ª