
:
xPlaceholder*
dtype0*
shape:
!
FFT3DFFT3Dx*
Tcomplex0
#
IFFT3DIFFT3Dx*
Tcomplex0"ª