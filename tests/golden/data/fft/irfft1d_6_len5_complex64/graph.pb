
.
xPlaceholder*
shape:*
dtype0
>
IRFFT/fft_lengthConst*
valueB:*
dtype0
@
IRFFTIRFFTxIRFFT/fft_length*
Treal0*
Tcomplex0"ª