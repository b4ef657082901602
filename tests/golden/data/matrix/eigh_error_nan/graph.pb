
<
PlaceholderPlaceholder*
shape
:*
dtype0
K
SelfAdjointEigV2SelfAdjointEigV2Placeholder*
	compute_v(*
T0"ª