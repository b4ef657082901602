
<
PlaceholderPlaceholder*
dtype0*
shape
:
P
Placeholder_1Placeholder*
dtype0*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
a
	MirrorPad	MirrorPadPlaceholderPlaceholder_1*
mode	SYMMETRIC*
T0*
	Tpaddings0"ª