
3
ConstConst*
dtype0*
valueB:
T
RandomUniformRandomUniformConst*
T0*
dtype0*
seed2*

seed"ª