
6
PlaceholderPlaceholder*
dtype0*
shape:
¼
UnicodeDecodeWithOffsetsUnicodeDecodeWithOffsetsPlaceholder*
Tsplits0	*
errors	replace*
input_encodingUTF-8* 
replace_control_characters(*
replacement_charýÿ"ª