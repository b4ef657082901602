
,
xPlaceholder*
dtype0*
shape:
1
h_prevPlaceholder*
dtype0*
shape:
/
w_ruPlaceholder*
dtype0*
shape:
.
w_cPlaceholder*
dtype0*
shape:
/
b_ruPlaceholder*
dtype0*
shape:
.
b_cPlaceholder*
dtype0*
shape:
F
GRUBlockCellGRUBlockCellxh_prevw_ruw_cb_rub_c*
T0"ª