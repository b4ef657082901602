
6
PlaceholderPlaceholder*
dtype0*
shape:
1
splitsPlaceholder*
dtype0	*
shape:
¿
StringNGramsStringNGramsPlaceholdersplits*
Tsplits0	*
left_padLP*
ngram_widths
*
	pad_width*
preserve_short_sequences(*
	right_padRP*
	separator "ª