
2
aPlaceholder*
dtype0*
shape
:
2
bPlaceholder*
dtype0*
shape
:
2
cPlaceholder*
dtype0*
shape
:
'
AddNAddNabc*
N*
T0"ª