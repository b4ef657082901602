
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
 
EluEluPlaceholder*
T0
O
gradients/grad_ys_0IdentityPlaceholder_1*
_class

loc:@Elu*
T0
`
gradients/Elu_grad/EluGradEluGradgradients/grad_ys_0Elu*
_class

loc:@Elu*
T0"ª