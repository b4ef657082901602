
<
PlaceholderPlaceholder*
dtype0*
shape
:
>
Placeholder_1Placeholder*
dtype0*
shape
:
Y
EinsumEinsumPlaceholderPlaceholder_1*
T0*
equationab,cd->abcd*
N"ª