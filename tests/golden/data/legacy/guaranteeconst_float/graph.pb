
<
PlaceholderPlaceholder*
dtype0*
shape
:
6
GuaranteeConstGuaranteeConstPlaceholder*
T0"ª