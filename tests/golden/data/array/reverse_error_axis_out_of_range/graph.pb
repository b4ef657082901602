
<
PlaceholderPlaceholder*
dtype0*
shape
:
C
Placeholder_1Placeholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
G
	ReverseV2	ReverseV2PlaceholderPlaceholder_1*
T0*

Tidx0"ª