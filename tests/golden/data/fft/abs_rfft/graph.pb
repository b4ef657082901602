
2
xPlaceholder*
shape
:d*
dtype0
8

rfft/ConstConst*
dtype0*
valueB:d
=
rfft/fft_lengthConst*
dtype0*
valueB:d
=
rfftRFFTxrfft/fft_length*
Tcomplex0*
Treal0
,
Abs
ComplexAbsrfft*
T0*

Tout0"ª