
.
xPlaceholder*
dtype0*
shape:
x
$CompositeTensorVariantFromComponents$CompositeTensorVariantFromComponentsx*
Tcomponents
2*
metadataÿÿÿ
Þ
"CompositeTensorVariantToComponents"CompositeTensorVariantToComponents$CompositeTensorVariantFromComponents*
Tcomponents
2*X
metadataLJ
H0¢-
úÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ
€
`
€	RaggedTensorSpec 
A
IdentityIdentity"CompositeTensorVariantToComponents*
T0"ª