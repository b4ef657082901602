
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
Š
CTCBeamSearchDecoderCTCBeamSearchDecoderPlaceholderPlaceholder_1*
T0*

beam_width*
merge_repeated(*
	top_paths"ª