
8
PlaceholderPlaceholder*
dtype0*
shape:
3
lengthPlaceholder*
dtype0*
shape:
\
DecodePaddedRawDecodePaddedRawPlaceholderlength*
little_endian(*
out_type0"ª