
A
RandomUniform/shapeConst*
dtype0*
valueB:
b
RandomUniformRandomUniformRandomUniform/shape*
T0*
dtype0*
seed2*

seed
C
RandomUniform_1/shapeConst*
dtype0*
valueB:
f
RandomUniform_1RandomUniformRandomUniform_1/shape*
T0*
dtype0*
seed2*

seed"ª