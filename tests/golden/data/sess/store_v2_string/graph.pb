
<
ConstConst*
dtype0*
valueBBs0Bs1Bs2
U
keep_v2GetSessionHandleV2Const*
T0*&
 _has_manual_control_dependencies(
.
IdentityIdentityConst^keep_v2*
T0"ª