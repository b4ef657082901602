
D
PlaceholderPlaceholder*
dtype0*
shape:
:
Placeholder_1Placeholder*
dtype0*
shape:
:
Placeholder_2Placeholder*
dtype0*
shape:
‹
RequantizationRangePerChannelRequantizationRangePerChannelPlaceholderPlaceholder_1Placeholder_2*
T0*
clip_value_max%(knN"ª