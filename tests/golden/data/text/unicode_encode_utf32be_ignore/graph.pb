
1
valuesPlaceholder*
dtype0*
shape:
1
splitsPlaceholder*
dtype0	*
shape:
‹
UnicodeEncodeUnicodeEncodevaluessplits*
Tsplits0	*
errorsignore*
output_encoding	UTF-32-BE*
replacement_charýÿ"ª