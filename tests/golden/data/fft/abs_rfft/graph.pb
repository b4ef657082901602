
2
xPlaceholder*
shape
:d*
dtype0
8

rfft/ConstConst*
valueB:d*
dtype0
=
rfft/fft_lengthConst*
valueB:d*
dtype0
=
rfftRFFTxrfft/fft_length*
Tcomplex0*
Treal0
,
Abs
ComplexAbsrfft*

Tout0*
T0"ª