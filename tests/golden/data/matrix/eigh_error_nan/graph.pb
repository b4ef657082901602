
<
PlaceholderPlaceholder*
dtype0*
shape
:
K
SelfAdjointEigV2SelfAdjointEigV2Placeholder*
	compute_v(*
T0"ª