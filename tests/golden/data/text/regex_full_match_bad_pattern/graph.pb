
6
PlaceholderPlaceholder*
dtype0*
shape:
,
pPlaceholder*
dtype0*
shape:
0
RegexFullMatchRegexFullMatchPlaceholderp"ª