
3
ConstConst*
dtype0*
valueB:
X
TruncatedNormalTruncatedNormalConst*
T0*
dtype0*
seed2*

seed"ª