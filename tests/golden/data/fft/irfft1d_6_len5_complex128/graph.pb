
.
xPlaceholder*
shape:*
dtype0
>
IRFFT/fft_lengthConst*
valueB:*
dtype0
@
IRFFTIRFFTxIRFFT/fft_length*
Tcomplex0*
Treal0"ª