
6
PlaceholderPlaceholder*
dtype0*
shape:
1
splitsPlaceholder*
dtype0	*
shape:
È
StringNGramsStringNGramsPlaceholdersplits*
Tsplits0	*
left_padLP*
ngram_widths
*
	pad_widthÿÿÿÿÿÿÿÿÿ*
preserve_short_sequences(*
	right_padRP*
	separator_"ª