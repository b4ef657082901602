
.
xPlaceholder*
dtype0*
shape:
>
IRFFT/fft_lengthConst*
dtype0*
valueB:
@
IRFFTIRFFTxIRFFT/fft_length*
Treal0*
Tcomplex0"ª