
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
TanhTanhPlaceholder*
T0
x
gradients/grad_ys_0IdentityPlaceholder_1*
_class
	loc:@Tanh*&
 _has_manual_control_dependencies(*
T0
e
gradients/Tanh_grad/TanhGradTanhGradTanhgradients/grad_ys_0*
_class
	loc:@Tanh*
T0"ª