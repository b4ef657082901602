
<
PlaceholderPlaceholder*
shape
:*
dtype0
>
Placeholder_1Placeholder*
shape
:*
dtype0
*
SoftplusSoftplusPlaceholder*
T0

TanhTanhSoftplus*
T0
&
mulMulPlaceholderTanh*
T0
O
gradients/grad_ys_0IdentityPlaceholder_1*
_class

loc:@mul*
T0
Y
gradients/mul_grad/MulMulgradients/grad_ys_0Tanh*
_class

loc:@mul*
T0
Š
gradients/mul_grad/Mul_1Mulgradients/grad_ys_0Placeholder*
_class

loc:@mul*&
 _has_manual_control_dependencies(*
T0
j
gradients/Tanh_grad/TanhGradTanhGradTanhgradients/mul_grad/Mul_1*
_class
	loc:@Tanh*
T0
]
gradients/Softplus_grad/SigmoidSigmoidPlaceholder*
_class
loc:@Softplus*
T0
‡
gradients/Softplus_grad/mulMulgradients/Tanh_grad/TanhGradgradients/Softplus_grad/Sigmoid*
_class
loc:@Softplus*
T0
u
gradients/AddNAddNgradients/mul_grad/Mulgradients/Softplus_grad/mul*
_class

loc:@mul*
T0*
N"ª