
8
PlaceholderPlaceholder*
dtype0*
shape:1
&
LgammaLgammaPlaceholder*
T0"ª