
>
valuePlaceholder*
dtype0*
shape:
1
biasPlaceholder*
dtype0*
shape:
,
	BiasAddV1	BiasAddV1valuebias*
T0"ª