
3
c0Placeholder*
dtype0	*
shape
:
/
c1Placeholder*
dtype0*
shape:
/
c2Placeholder*
dtype0	*
shape:
¸
$CompositeTensorVariantFromComponents$CompositeTensorVariantFromComponentsc0c1c2*
Tcomponents
2		*F
metadata:8
6¢
úÿÿÿÿÿÿÿÿÿ
€SparseTensorSpec 
Î
"CompositeTensorVariantToComponents"CompositeTensorVariantToComponents$CompositeTensorVariantFromComponents*
Tcomponents
2		*F
metadata:8
6¢
úÿÿÿÿÿÿÿÿÿ
€SparseTensorSpec 
A
IdentityIdentity"CompositeTensorVariantToComponents*
T0	
E

Identity_1Identity$CompositeTensorVariantToComponents:1*
T0
E

Identity_2Identity$CompositeTensorVariantToComponents:2*
T0	"ª