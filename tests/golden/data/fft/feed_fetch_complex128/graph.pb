
2
xPlaceholder*
shape
:*
dtype0
 
IdentityIdentityx*
T0"ª