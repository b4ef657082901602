
<
PlaceholderPlaceholder*
dtype0*
shape
:
G
unstackUnpackPlaceholder*	
num*
T0*
axisÿÿÿÿÿÿÿÿÿ"ª