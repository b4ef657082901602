
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
dtype0*
T0*
Tseed0	"ª