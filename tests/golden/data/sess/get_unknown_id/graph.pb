
,
pPlaceholder*
dtype0*
shape:
4
GetSessionTensorGetSessionTensorp*
dtype0"ª