
<
PlaceholderPlaceholder*
dtype0*
shape
:
>
Placeholder_1Placeholder*
dtype0*
shape
:
:
Placeholder_2Placeholder*
dtype0*
shape:
:
Placeholder_3Placeholder*
dtype0*
shape:
•
!FakeQuantWithMinMaxVarsPerChannel!FakeQuantWithMinMaxVarsPerChannelPlaceholderPlaceholder_2Placeholder_3*
narrow_range(*
num_bits
´
)FakeQuantWithMinMaxVarsPerChannelGradient)FakeQuantWithMinMaxVarsPerChannelGradientPlaceholder_1PlaceholderPlaceholder_2Placeholder_3*
narrow_range(*
num_bits"ª