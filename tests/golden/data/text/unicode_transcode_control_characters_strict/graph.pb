
6
PlaceholderPlaceholder*
dtype0*
shape:
¸
UnicodeTranscodeUnicodeTranscodePlaceholder*
errorsstrict*
input_encodingUTF-8*
output_encodingUTF-8* 
replace_control_characters(*
replacement_charýÿ"ª