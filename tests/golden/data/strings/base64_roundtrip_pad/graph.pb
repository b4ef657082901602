
<
PlaceholderPlaceholder*
shape
:	*
dtype0
4
EncodeBase64EncodeBase64Placeholder*	
pad(
*
DecodeBase64DecodeBase64EncodeBase64"ª