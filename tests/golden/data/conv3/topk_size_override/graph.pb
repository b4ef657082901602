
<
PlaceholderPlaceholder*
dtype0*
shape
:

Á

ApproxTopK
ApproxTopKPlaceholder*
T0*
aggregate_to_topk(*
is_max_k(*
k*
recall_target%33s?*"
reduction_dimensionÿÿÿÿÿÿÿÿÿ*#
reduction_input_size_overrided"ª