
@
PlaceholderPlaceholder*
dtype0*
shape:
>
Placeholder_1Placeholder*
dtype0	*
shape
:
:
Placeholder_2Placeholder*
dtype0*
shape:
:
Placeholder_3Placeholder*
dtype0*
shape:
¼
CTCLossCTCLossPlaceholderPlaceholder_1Placeholder_2Placeholder_3*'
!ignore_longer_outputs_than_inputs(*
T0*"
preprocess_collapse_repeated(*
ctc_merge_repeated("ª