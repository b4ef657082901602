
6
PlaceholderPlaceholder*
dtype0*
shape:
»
UnicodeTranscodeUnicodeTranscodePlaceholder*
errors	replace*
input_encodingUTF-8*
output_encoding	UTF-16-BE* 
replace_control_characters(*
replacement_char*"ª