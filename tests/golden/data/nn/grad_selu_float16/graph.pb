
<
PlaceholderPlaceholder*
shape
:*
dtype0
>
Placeholder_1Placeholder*
shape
:*
dtype0
"
SeluSeluPlaceholder*
T0
P
gradients/grad_ys_0IdentityPlaceholder_1*
_class
	loc:@Selu*
T0
e
gradients/Selu_grad/SeluGradSeluGradgradients/grad_ys_0Selu*
_class
	loc:@Selu*
T0"ª