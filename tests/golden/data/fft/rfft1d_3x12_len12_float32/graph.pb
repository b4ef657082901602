
2
xPlaceholder*
dtype0*
shape
:
=
RFFT/fft_lengthConst*
dtype0*
valueB:
=
RFFTRFFTxRFFT/fft_length*
Treal0*
Tcomplex0"ª