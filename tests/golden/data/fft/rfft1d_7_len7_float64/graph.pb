
.
xPlaceholder*
shape:*
dtype0
=
RFFT/fft_lengthConst*
valueB:*
dtype0
=
RFFTRFFTxRFFT/fft_length*
Treal0*
Tcomplex0"ª