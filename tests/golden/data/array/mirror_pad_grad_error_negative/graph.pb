
8
PlaceholderPlaceholder*
dtype0*
shape:
P
Placeholder_1Placeholder*
dtype0*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
i
MirrorPadGradMirrorPadGradPlaceholderPlaceholder_1*
mode	SYMMETRIC*
T0*
	Tpaddings0"ª