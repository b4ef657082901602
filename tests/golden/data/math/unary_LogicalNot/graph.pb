
8
PlaceholderPlaceholder*
shape:*
dtype0

%

LogicalNot
LogicalNotPlaceholder"ª