
<
PlaceholderPlaceholder*
shape
:*
dtype0
>
Placeholder_1Placeholder*
shape
:*
dtype0
>
Placeholder_2Placeholder*
shape
:*
dtype0
N
ClipByValueClipByValuePlaceholderPlaceholder_1Placeholder_2*
T0"ª