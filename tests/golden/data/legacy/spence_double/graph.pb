
8
PlaceholderPlaceholder*
dtype0*
shape:
&
SpenceSpencePlaceholder*
T0"ª