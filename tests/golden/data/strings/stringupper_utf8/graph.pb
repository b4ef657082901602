
8
PlaceholderPlaceholder*
shape:*
dtype0
<
StringUpperStringUpperPlaceholder*
encodingutf-8"ª