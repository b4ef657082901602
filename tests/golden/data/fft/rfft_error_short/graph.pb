
}
PlaceholderWithDefault/inputConst*I
value@B>"02»‚¾<Cº>XÅ=8'¾É>ÐÌ?¿¤Ì>qÚ6?¥Ü,¾àÎ¿£Ÿ<¿W¿,?*
dtype0
j
PlaceholderWithDefaultPlaceholderWithDefaultPlaceholderWithDefault/input*
shape:*
dtype0

PlaceholderWithDefault_1/inputConst*Y
valuePBNJ@zÞ¾/ P¾jR?z$>?}#?ÿó¿tÔ¾!!,?úq+?T=E?¼)O?Tó>½æðÜ¾vÆ=,<I?v¿*
dtype0
n
PlaceholderWithDefault_1PlaceholderWithDefaultPlaceholderWithDefault_1/input*
shape:*
dtype0
L
PlaceholderWithDefault_2/inputConst*
valueB:*
dtype0
n
PlaceholderWithDefault_2PlaceholderWithDefaultPlaceholderWithDefault_2/input*
shape:*
dtype0
[
RFFTRFFTPlaceholderWithDefaultPlaceholderWithDefault_2*
Tcomplex0*
Treal0"ª