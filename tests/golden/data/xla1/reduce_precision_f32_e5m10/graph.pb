
8
PlaceholderPlaceholder*
dtype0*
shape:
h
XlaReducePrecisionXlaReducePrecisionPlaceholder*
T0*
exponent_bits*
mantissa_bits
"ª