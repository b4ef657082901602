
5
legacyPlaceholderV2*
dtype0*
shape:
 
outIdentitylegacy*
T0"