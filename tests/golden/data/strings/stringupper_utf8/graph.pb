
8
PlaceholderPlaceholder*
dtype0*
shape:
<
StringUpperStringUpperPlaceholder*
encodingutf-8"ª