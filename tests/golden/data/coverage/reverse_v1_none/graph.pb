
@
PlaceholderPlaceholder*
dtype0*
shape:
:
dimsPlaceholder*
dtype0
*
shape:ÿÿÿÿÿÿÿÿÿ
.
ReverseReversePlaceholderdims*
T0"ª