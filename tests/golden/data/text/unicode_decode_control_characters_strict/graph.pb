
6
PlaceholderPlaceholder*
dtype0*
shape:
¥
UnicodeDecodeUnicodeDecodePlaceholder*
Tsplits0	*
errorsstrict*
input_encodingUTF-8* 
replace_control_characters(*
replacement_charýÿ"ª