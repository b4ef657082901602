
8
PlaceholderPlaceholder*
dtype0*
shape:/
&
ErfinvErfinvPlaceholder*
T0"ª