
@
PlaceholderPlaceholder*
dtype0*
shape:
:
lensPlaceholder*
dtype0	*
shape:ÿÿÿÿÿÿÿÿÿ
j
ReverseSequenceReverseSequencePlaceholderlens*

Tlen0	*
T0*
	batch_dim*
seq_dim"ª