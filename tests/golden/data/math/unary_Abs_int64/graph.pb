
8
PlaceholderPlaceholder*
shape:*
dtype0	
 
AbsAbsPlaceholder*
T0	"ª