
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
(
SigmoidSigmoidPlaceholder*
T0
{
gradients/grad_ys_0IdentityPlaceholder_1*
_class
loc:@Sigmoid*&
 _has_manual_control_dependencies(*
T0
t
"gradients/Sigmoid_grad/SigmoidGradSigmoidGradSigmoidgradients/grad_ys_0*
_class
loc:@Sigmoid*
T0"ª