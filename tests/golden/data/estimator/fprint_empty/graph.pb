
.
in0Placeholder*
dtype0*
shape:


SdcaFprint
SdcaFprintin0"ª