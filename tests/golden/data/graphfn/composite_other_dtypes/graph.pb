
/
c0Placeholder*
dtype0*
shape:
/
c1Placeholder*
dtype0
*
shape:
3
c2Placeholder*
dtype0*
shape
:
Ê
$CompositeTensorVariantFromComponents$CompositeTensorVariantFromComponentsc0c1c2*
Tcomponents
2
*X
metadataLJ
H0¢-
úÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
€
`
€	RaggedTensorSpec 
à
"CompositeTensorVariantToComponents"CompositeTensorVariantToComponents$CompositeTensorVariantFromComponents*
Tcomponents
2
*X
metadataLJ
H0¢-
úÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
€
`
€	RaggedTensorSpec 
A
IdentityIdentity"CompositeTensorVariantToComponents*
T0
E

Identity_1Identity$CompositeTensorVariantToComponents:1*
T0

E

Identity_2Identity$CompositeTensorVariantToComponents:2*
T0"ª