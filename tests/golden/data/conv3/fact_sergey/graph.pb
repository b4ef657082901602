
!
FactFact*
_kernelSergey"ª