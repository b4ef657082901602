
3
ConstConst*
dtype0*
valueB:
X
TruncatedNormalTruncatedNormalConst*
dtype0*
seed2*

seed*
T0"ª