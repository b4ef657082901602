
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
rfftRFFTxrfft/fft_length*
Treal0*
Tcomplex0
,
Abs
ComplexAbsrfft*
T0*

Tout0"ª