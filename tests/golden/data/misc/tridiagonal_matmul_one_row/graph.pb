
<
PlaceholderPlaceholder*
dtype0*
shape
:
>
Placeholder_1Placeholder*
dtype0*
shape
:
>
Placeholder_2Placeholder*
dtype0*
shape
:
>
Placeholder_3Placeholder*
dtype0*
shape
:
i
TridiagonalMatMulTridiagonalMatMulPlaceholderPlaceholder_1Placeholder_2Placeholder_3*
T0"ª