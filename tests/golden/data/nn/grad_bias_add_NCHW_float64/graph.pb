
D
PlaceholderPlaceholder*
shape:*
dtype0
:
Placeholder_1Placeholder*
shape:*
dtype0
F
Placeholder_2Placeholder*
shape:*
dtype0
N
BiasAddBiasAddPlaceholderPlaceholder_1*
data_formatNCHW*
T0
S
gradients/grad_ys_0IdentityPlaceholder_2*
_class
loc:@BiasAdd*
T0
‚
"gradients/BiasAdd_grad/BiasAddGradBiasAddGradgradients/grad_ys_0*
data_formatNCHW*
_class
loc:@BiasAdd*
T0"ª