
8
PlaceholderPlaceholder*
shape:*
dtype0
A
CastCastPlaceholder*
Truncate(*

DstT0*

SrcT0"ª