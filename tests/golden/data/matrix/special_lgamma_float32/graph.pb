
8
PlaceholderPlaceholder*
shape:1*
dtype0
&
LgammaLgammaPlaceholder*
T0"ª