
<
PlaceholderPlaceholder*
shape
:*
dtype0
>
Placeholder_1Placeholder*
shape
:*
dtype0
&
L2LossL2LossPlaceholder*
T0
R
gradients/grad_ys_0IdentityPlaceholder_1*
_class
loc:@L2Loss*
T0
f
gradients/L2Loss_grad/mulMulPlaceholdergradients/grad_ys_0*
_class
loc:@L2Loss*
T0
;
Reshape/shapeConst*
valueB:*
dtype0
@
ReshapeReshapeL2LossReshape/shape*
T0*
Tshape0"ª