
3
ConstConst*
dtype0*
valueB:
b
RandomStandardNormalRandomStandardNormalConst*
dtype0*
seed2*

seed*
T0"ª