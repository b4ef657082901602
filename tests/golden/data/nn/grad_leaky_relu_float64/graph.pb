
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
<
	LeakyRelu	LeakyReluPlaceholder*
T0*
alpha%ÍÌL>
U
gradients/grad_ys_0IdentityPlaceholder_1*
_class
loc:@LeakyRelu*
T0

&gradients/LeakyRelu_grad/LeakyReluGradLeakyReluGradgradients/grad_ys_0Placeholder*
_class
loc:@LeakyRelu*
T0*
alpha%ÍÌL>"ª