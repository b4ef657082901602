
6
xPlaceholder*
dtype0*
shape:%
!
FFT2DFFT2Dx*
Tcomplex0
#
IFFT2DIFFT2Dx*
Tcomplex0"ª