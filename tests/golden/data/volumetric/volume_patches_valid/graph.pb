
>
xPlaceholder*
shape:*
dtype0
w
ExtractVolumePatchesExtractVolumePatchesx*
ksizes	
*
T0*
paddingVALID*
strides	
"ª