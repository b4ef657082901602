
7
paramsPlaceholder*
shape
:*
dtype0
8
indicesPlaceholder*
shape
:*
dtype0
d
GatherNdGatherNdparamsindices*
Tparams0*
bad_indices_policyIGNORE*
Tindices0"ª