
8
PlaceholderPlaceholder*
dtype0	*
shape:
»
CollectiveGatherCollectiveGatherPlaceholder*
T0	*
communication_hintauto*
	group_keyÞ7*

group_size*
instance_key*
shape:*
timeout_seconds%š™™>"ª