
2
xPlaceholder*
shape
:*
dtype0
=
RFFT/fft_lengthConst*
valueB:*
dtype0
=
RFFTRFFTxRFFT/fft_length*
Tcomplex0*
Treal0"ª