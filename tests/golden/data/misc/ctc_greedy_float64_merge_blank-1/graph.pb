
@
PlaceholderPlaceholder*
shape:*
dtype0
:
Placeholder_1Placeholder*
shape:*
dtype0
{
CTCGreedyDecoderCTCGreedyDecoderPlaceholderPlaceholder_1*
merge_repeated(*
T0*
blank_indexÿÿÿÿÿÿÿÿÿ"ª