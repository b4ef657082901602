
2
xPlaceholder*
shape
:d*
dtype0
=
RFFT/fft_lengthConst*
valueB:d*
dtype0
=
RFFTRFFTxRFFT/fft_length*
Tcomplex0*
Treal0"ª