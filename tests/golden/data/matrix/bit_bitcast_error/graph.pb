
A
PlaceholderPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
4
BitcastBitcastPlaceholder*

type0*
T0"ª