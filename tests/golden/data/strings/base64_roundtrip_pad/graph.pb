
<
PlaceholderPlaceholder*
dtype0*
shape
:	
4
EncodeBase64EncodeBase64Placeholder*	
pad(
*
DecodeBase64DecodeBase64EncodeBase64"ª