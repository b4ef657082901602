
<
PlaceholderPlaceholder*
shape
:*
dtype0
>
Placeholder_1Placeholder*
shape
:*
dtype0
:
Placeholder_2Placeholder*
shape:*
dtype0
:
Placeholder_3Placeholder*
shape:*
dtype0
•
!FakeQuantWithMinMaxVarsPerChannel!FakeQuantWithMinMaxVarsPerChannelPlaceholderPlaceholder_2Placeholder_3*
narrow_range(*
num_bits
´
)FakeQuantWithMinMaxVarsPerChannelGradient)FakeQuantWithMinMaxVarsPerChannelGradientPlaceholder_1PlaceholderPlaceholder_2Placeholder_3*
narrow_range(*
num_bits"ª