
<
PlaceholderPlaceholder*
shape
:*
dtype0
>
Placeholder_1Placeholder*
shape
:*
dtype0
"
ReluReluPlaceholder*
T0
P
gradients/grad_ys_0IdentityPlaceholder_1*
_class
	loc:@Relu*
T0
e
gradients/Relu_grad/ReluGradReluGradgradients/grad_ys_0Relu*
_class
	loc:@Relu*
T0"ª