
>
xPlaceholder*
shape:*
dtype0
v
ExtractVolumePatchesExtractVolumePatchesx*
ksizes	
*
T0*
paddingSAME*
strides	
"ª