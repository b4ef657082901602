
/
c0Placeholder*
dtype0*
shape:
/
c1Placeholder*
dtype0	*
shape:
Å
$CompositeTensorVariantFromComponents$CompositeTensorVariantFromComponentsc0c1*
Tcomponents
2	*X
metadataLJ
H0¢-
úÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
€
`
€	RaggedTensorSpec 
Í
"CompositeTensorVariantToComponents"CompositeTensorVariantToComponents$CompositeTensorVariantFromComponents*
Tcomponents
2	*F
metadata:8
6¢
úÿÿÿÿÿÿÿÿÿ
€SparseTensorSpec 
A
IdentityIdentity"CompositeTensorVariantToComponents*
T0
E

Identity_1Identity$CompositeTensorVariantToComponents:1*
T0	"ª