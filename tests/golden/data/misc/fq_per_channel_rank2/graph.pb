
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
!FakeQuantWithMinMaxVarsPerChannel!FakeQuantWithMinMaxVarsPerChannelPlaceholderPlaceholder_2Placeholder_3*
num_bits*
narrow_range(
´
)FakeQuantWithMinMaxVarsPerChannelGradient)FakeQuantWithMinMaxVarsPerChannelGradientPlaceholder_1PlaceholderPlaceholder_2Placeholder_3*
num_bits*
narrow_range("ª