
2
xPlaceholder*
dtype0*
shape
:3
>
IRFFT/fft_lengthConst*
dtype0*
valueB:d
@
IRFFTIRFFTxIRFFT/fft_length*
Treal0*
Tcomplex0"ª