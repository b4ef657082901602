
.
xPlaceholder*
dtype0*
shape:&
>
IRFFT/fft_lengthConst*
valueB:J*
dtype0
@
IRFFTIRFFTxIRFFT/fft_length*
Tcomplex0*
Treal0"ª