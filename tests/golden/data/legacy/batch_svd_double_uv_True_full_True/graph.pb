

ConstConst*
dtype0*}
valuetBr"`Πε£ΎΕ%ζΏ$6‹/ÿ?Δwιµ{4ηΏΞ ©τ•wς?Tρ(kb¬χ?ψ σΉέαΫΏKΪvςΝΟΏδ@Ξ‘ΓIΰΏ<n=¬'ωΏΰQΤyµΏ­‚»―πΏtW“OέοΏ
I
legacyBatchSvdConst*
T0*

compute_uv(*
full_matrices("