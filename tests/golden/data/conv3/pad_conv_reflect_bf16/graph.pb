
D
PlaceholderPlaceholder*
dtype0*
shape:
F
Placeholder_1Placeholder*
dtype0*
shape:
>
Placeholder_2Placeholder*
dtype0*
shape
:
ê
FusedPadConv2DFusedPadConv2DPlaceholderPlaceholder_2Placeholder_1*
T0*
mode	REFLECT*
paddingVALID*
strides
"™