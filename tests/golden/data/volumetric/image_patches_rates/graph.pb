
:
xPlaceholder*
shape:	*
dtype0
…
ExtractImagePatchesExtractImagePatchesx*
ksizes
*
T0*
paddingSAME*
rates
*
strides
"ª