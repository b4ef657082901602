
1
valuesPlaceholder*
dtype0*
shape:
1
splitsPlaceholder*
dtype0	*
shape:
ˆ
UnicodeEncodeUnicodeEncodevaluessplits*
Tsplits0	*
errors	replace*
output_encodingUTF-8*
replacement_charýÿ"ª