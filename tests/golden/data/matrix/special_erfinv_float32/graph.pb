
8
PlaceholderPlaceholder*
shape:/*
dtype0
&
ErfinvErfinvPlaceholder*
T0"ª