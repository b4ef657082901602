
6
PlaceholderPlaceholder*
dtype0	*
shape:
*
DiagPartDiagPartPlaceholder*
T0	"ª