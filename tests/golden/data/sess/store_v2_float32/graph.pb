
>
ConstConst*
dtype0*!
valueB"aKM¿˜„©¿‚R~¾
U
keep_v2GetSessionHandleV2Const*
T0*&
 _has_manual_control_dependencies(
.
IdentityIdentityConst^keep_v2*
T0"ª