
>
valuePlaceholder*
dtype0*
shape:
1
biasPlaceholder*
dtype0*
shape:
?
BiasAddBiasAddvaluebias*
T0*
data_formatNHWC"ª