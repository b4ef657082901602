
.
xPlaceholder*
shape:*
dtype0

FFTFFTx*
Tcomplex0

IFFTIFFTx*
Tcomplex0"ª