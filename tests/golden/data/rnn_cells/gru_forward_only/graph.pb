
2
xPlaceholder*
dtype0*
shape
:
7
h_prevPlaceholder*
dtype0*
shape
:
5
w_ruPlaceholder*
dtype0*
shape
:
4
w_cPlaceholder*
dtype0*
shape
:
1
b_ruPlaceholder*
dtype0*
shape:
0
b_cPlaceholder*
dtype0*
shape:
F
GRUBlockCellGRUBlockCellxh_prevw_ruw_cb_rub_c*
T0"ª