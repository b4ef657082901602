
2
xPlaceholder*
dtype0*
shape
:J
=
RFFT/fft_lengthConst*
dtype0*
valueB:J
=
RFFTRFFTxRFFT/fft_length*
Tcomplex0*
Treal0"ª