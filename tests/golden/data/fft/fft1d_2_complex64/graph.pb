
.
xPlaceholder*
dtype0*
shape:

FFTFFTx*
Tcomplex0

IFFTIFFTx*
Tcomplex0"ª