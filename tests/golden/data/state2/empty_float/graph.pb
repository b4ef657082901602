
6
PlaceholderPlaceholder*
dtype0*
shape:
4
EmptyEmptyPlaceholder*
dtype0*

init("ª