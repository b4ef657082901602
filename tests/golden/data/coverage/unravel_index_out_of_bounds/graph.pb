
8
PlaceholderPlaceholder*
dtype0*
shape:
1
dimsPlaceholder*
dtype0*
shape:
;
UnravelIndexUnravelIndexPlaceholderdims*

Tidx0"ª