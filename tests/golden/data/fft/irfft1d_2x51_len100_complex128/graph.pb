
2
xPlaceholder*
shape
:3*
dtype0
>
IRFFT/fft_lengthConst*
valueB:d*
dtype0
@
IRFFTIRFFTxIRFFT/fft_length*
Treal0*
Tcomplex0"ª