
.
xPlaceholder*
shape:*
dtype0
i
PlaceholderWithDefault/inputConst*5
value,B*J aE¿â½?Z0¾/3<?—ÁP¿Ñµ±¾„¦=>åG¿*
dtype0
j
PlaceholderWithDefaultPlaceholderWithDefaultPlaceholderWithDefault/input*
shape:*
dtype0
6
FFT2DFFT2DPlaceholderWithDefault*
Tcomplex0"ª