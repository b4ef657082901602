
<
PlaceholderPlaceholder*
shape
:*
dtype0
>
Placeholder_1Placeholder*
shape
:*
dtype0
>
Placeholder_2Placeholder*
shape
:*
dtype0
>
Placeholder_3Placeholder*
shape
:*
dtype0
i
TridiagonalMatMulTridiagonalMatMulPlaceholderPlaceholder_1Placeholder_2Placeholder_3*
T0"ª