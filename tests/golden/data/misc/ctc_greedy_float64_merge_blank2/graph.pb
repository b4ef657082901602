
@
PlaceholderPlaceholder*
shape:*
dtype0
:
Placeholder_1Placeholder*
shape:*
dtype0
r
CTCGreedyDecoderCTCGreedyDecoderPlaceholderPlaceholder_1*
merge_repeated(*
blank_index*
T0"ª