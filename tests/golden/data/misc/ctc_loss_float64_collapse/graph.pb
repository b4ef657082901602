
@
PlaceholderPlaceholder*
shape:*
dtype0
>
Placeholder_1Placeholder*
shape
:*
dtype0	
:
Placeholder_2Placeholder*
shape:*
dtype0
:
Placeholder_3Placeholder*
shape:*
dtype0
¼
CTCLossCTCLossPlaceholderPlaceholder_1Placeholder_2Placeholder_3*
ctc_merge_repeated(*
T0*"
preprocess_collapse_repeated(*'
!ignore_longer_outputs_than_inputs("ª