
<
PlaceholderPlaceholder*
dtype0*
shape
:
>
unstackUnpackPlaceholder*	
num*
T0*

axis"ª