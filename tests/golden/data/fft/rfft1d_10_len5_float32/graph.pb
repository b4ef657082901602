
.
xPlaceholder*
dtype0*
shape:

=
RFFT/fft_lengthConst*
dtype0*
valueB:
=
RFFTRFFTxRFFT/fft_length*
Tcomplex0*
Treal0"ª