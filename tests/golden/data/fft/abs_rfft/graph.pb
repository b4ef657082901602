
2
xPlaceholder*
dtype0*
shape
:d
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
ComplexAbsrfft*

Tout0*
T0"ª