
6
PlaceholderPlaceholder*
dtype0*
shape:
,
dPlaceholder*
dtype0*
shape:
<
StringSplitStringSplitPlaceholderd*

skip_empty("ª