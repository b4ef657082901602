
7
paramsPlaceholder*
shape
:*
dtype0
8
indicesPlaceholder*
shape
:*
dtype0	
X
GatherGatherparamsindices*
validate_indices(*
Tparams0*
Tindices0	"ª