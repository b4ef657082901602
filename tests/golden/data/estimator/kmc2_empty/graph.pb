
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0	*
shape:
<
KMC2ChainInitializationKMC2ChainInitializationin0in1"ª