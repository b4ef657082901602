
~
ConstConst*
dtype0*a
valueXBV"H¶½@e†@€×VÆÌ;ù¿éEçvõÃ?€×VÆÌ;ù¿®7p¹³W@œÍQ0R´ô¿éEçvõÃ?œÍQ0R´ô¿ÅñĞ¨òİ@
(
legacySelfAdjointEigConst*
T0"