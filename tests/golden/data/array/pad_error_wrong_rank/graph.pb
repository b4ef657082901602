
<
PlaceholderPlaceholder*
dtype0*
shape
:
P
Placeholder_1Placeholder*
dtype0*%
shape:ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
@
PadPadPlaceholderPlaceholder_1*
T0*
	Tpaddings0"ª