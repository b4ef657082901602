
2
xPlaceholder*
shape
:*
dtype0
!
FFT2DFFT2Dx*
Tcomplex0
#
IFFT2DIFFT2Dx*
Tcomplex0"ª