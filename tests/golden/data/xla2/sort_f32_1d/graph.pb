
8
PlaceholderPlaceholder*
dtype0*
shape:	
(
XlaSortXlaSortPlaceholder*
T0"ª