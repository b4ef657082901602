
7
ConstConst*
dtype0*
valueBBxByz
>
DebugGradientIdentityDebugGradientIdentityConst*
T0"ª