
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
SoftsignSoftsignPlaceholder*
T0
T
gradients/grad_ys_0IdentityPlaceholder_1*
_class
loc:@Softsign*
T0
|
$gradients/Softsign_grad/SoftsignGradSoftsignGradgradients/grad_ys_0Placeholder*
_class
loc:@Softsign*
T0"ª