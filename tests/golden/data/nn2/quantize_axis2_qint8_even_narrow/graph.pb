
@
PlaceholderPlaceholder*
dtype0*
shape:
:
Placeholder_1Placeholder*
dtype0*
shape:
:
Placeholder_2Placeholder*
dtype0*
shape:
»

QuantizeV2
QuantizeV2PlaceholderPlaceholder_1Placeholder_2*
T0*

axis*
ensure_minimum_range%ÍÌL=*
modeSCALED*
narrow_range(*

round_modeHALF_TO_EVEN"ª