
.
xPlaceholder*
dtype0*
shape:
i
PlaceholderWithDefault/inputConst*
dtype0*5
value,B*J aE¿â½?Z0¾/3<?—ÁP¿Ñµ±¾„¦=>åG¿
j
PlaceholderWithDefaultPlaceholderWithDefaultPlaceholderWithDefault/input*
dtype0*
shape:
6
FFT2DFFT2DPlaceholderWithDefault*
Tcomplex0"ª