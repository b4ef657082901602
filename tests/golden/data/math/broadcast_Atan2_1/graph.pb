
<
PlaceholderPlaceholder*
shape
:*
dtype0
>
Placeholder_1Placeholder*
shape
:*
dtype0
3
Atan2Atan2PlaceholderPlaceholder_1*
T0"ª