
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
$
Relu6Relu6Placeholder*
T0
Q
gradients/grad_ys_0IdentityPlaceholder_1*
_class

loc:@Relu6*
T0
j
gradients/Relu6_grad/Relu6Grad	Relu6Gradgradients/grad_ys_0Relu6*
_class

loc:@Relu6*
T0"ª