
<
PlaceholderPlaceholder*
dtype0*
shape
:
C
Placeholder_1Placeholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
C
TileTilePlaceholderPlaceholder_1*
T0*

Tmultiples0"ª