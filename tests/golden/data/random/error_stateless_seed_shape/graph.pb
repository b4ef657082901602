
A
PlaceholderPlaceholder*
dtype0	*
shape:ÿÿÿÿÿÿÿÿÿ
J
StatelessRandomUniform/shapeConst*
dtype0*
valueB:
~
StatelessRandomUniformStatelessRandomUniformStatelessRandomUniform/shapePlaceholder*
Tseed0	*
T0*
dtype0"ª