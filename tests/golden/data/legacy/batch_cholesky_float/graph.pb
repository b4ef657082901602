
‚
ConstConst*
dtype0*e
value\BZ"HÛğ@§Õ§Àßšn¿§Õ§À…“0A?ßšn¿?HÃ@LL9Af!Ù¿—@¿f!Ù¿ÂäA¡4À—@¿¡4À@FÚ@
'
legacyBatchCholeskyConst*
T0"