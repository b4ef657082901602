
D
PlaceholderPlaceholder*
dtype0*
shape:	
F
Placeholder_1Placeholder*
dtype0*
shape:
>
Placeholder_2Placeholder*
dtype0*
shape
:
:
Placeholder_3Placeholder*
dtype0*
shape:
Î
FusedResizeAndPadConv2DFusedResizeAndPadConv2DPlaceholderPlaceholder_3Placeholder_2Placeholder_1*
T0*
mode	SYMMETRIC*
paddingSAME*
resize_align_corners(*
strides
"ª