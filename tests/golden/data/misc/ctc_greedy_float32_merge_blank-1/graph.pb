
@
PlaceholderPlaceholder*
dtype0*
shape:
:
Placeholder_1Placeholder*
dtype0*
shape:
{
CTCGreedyDecoderCTCGreedyDecoderPlaceholderPlaceholder_1*
merge_repeated(*
blank_indexÿÿÿÿÿÿÿÿÿ*
T0"ª