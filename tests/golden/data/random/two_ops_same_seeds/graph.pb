
A
RandomUniform/shapeConst*
dtype0*
valueB:
b
RandomUniformRandomUniformRandomUniform/shape*
dtype0*
seed2*

seed*
T0
C
RandomUniform_1/shapeConst*
dtype0*
valueB:
f
RandomUniform_1RandomUniformRandomUniform_1/shape*
dtype0*
seed2*

seed*
T0"ª