
<
PlaceholderPlaceholder*
shape
:*
dtype0
>
Placeholder_1Placeholder*
shape
:*
dtype0
*
SoftplusSoftplusPlaceholder*
T0
T
gradients/grad_ys_0IdentityPlaceholder_1*
_class
loc:@Softplus*
T0
]
gradients/Softplus_grad/SigmoidSigmoidPlaceholder*
_class
loc:@Softplus*
T0
~
gradients/Softplus_grad/mulMulgradients/grad_ys_0gradients/Softplus_grad/Sigmoid*
_class
loc:@Softplus*
T0"ª